// compose-check loads a Compose file with the Compose specification's own loader (compose-go, the library
// `docker compose` is built on): interpolation, schema validation and normalisation, exactly as `docker compose
// config` does. It prints the loaded project as JSON on stdout, or the loader's error on stderr with exit code 1.
//
//	compose-check [--env NAME=VALUE]... FILE
//
// Only the given variables are visible to interpolation, so with none every `${NAME:-default}` takes its default.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/compose-spec/compose-go/v2/cli"
)

type envFlags []string

func (e *envFlags) String() string     { return strings.Join(*e, ",") }
func (e *envFlags) Set(v string) error { *e = append(*e, v); return nil }

func main() {
	var env envFlags
	flag.Var(&env, "env", "NAME=VALUE visible to interpolation (repeatable)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: compose-check [--env NAME=VALUE]... FILE")
		os.Exit(2)
	}
	file, err := filepath.Abs(flag.Arg(0))
	if err != nil {
		fail(err)
	}
	options, err := cli.NewProjectOptions(
		[]string{file},
		cli.WithWorkingDirectory(filepath.Dir(file)),
		// No .env file and no process environment: only what --env names, so the defaults are what is checked.
		cli.WithEnv(env),
		cli.WithResolvedPaths(true),
	)
	if err != nil {
		fail(err)
	}
	project, err := options.LoadProject(context.Background())
	if err != nil {
		fail(err)
	}
	out, err := project.MarshalJSON()
	if err != nil {
		fail(err)
	}
	os.Stdout.Write(append(out, '\n'))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
