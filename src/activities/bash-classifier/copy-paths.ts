// Node: what `cp` and `ln` write, judged per entry: the destination, or each source's name inside a destination
// directory, and for links the target a write through the link would reach.
import type { CommandContext, PathUse } from './verdict.js';
import type { ParsedArguments, ShellWord } from './words.js';
import { hasOption, hasShortLetter, literalWord, optionMatches } from './words.js';

/**
 * What `cp` and `ln` write: the destination, or, when it is a directory (an existing one, or `-t DIR`), the name each
 * source gets in it (`dir/<basename>`), so `cp x/.git .` is judged as writing `.git`. Sources are read, except link
 * targets: a link makes whatever it points at writable through it, so they are judged as write targets too, and a
 * symbolic one is resolved from the directory the link is made in (`ln -s ../../x sub/dir/link`), unless `-r`.
 */
export async function copyPaths(
  name: 'cp' | 'ln',
  parsed: ParsedArguments,
  context: CommandContext,
): Promise<PathUse[]> {
  const targetOption = parsed.options.find(
    (option) => option.value !== undefined && optionMatches(option, ['-t', '--target-directory']),
  )?.value;
  const noTargetDirectory = hasOption(parsed, '-T', '--no-target-directory') || hasShortLetter(parsed, 'T');
  const symbolic =
    name === 'ln' &&
    (hasOption(parsed, '-s', '--symbolic') || hasShortLetter(parsed, 's')) &&
    !(hasOption(parsed, '-r', '--relative') || hasShortLetter(parsed, 'r'));
  const link = name === 'ln';
  const sources = [...parsed.positionals];
  let destination = targetOption;
  if (destination === undefined && (sources.length >= 2 || !link)) destination = sources.pop();
  const uses: PathUse[] = [];
  let intoDirectory = targetOption !== undefined;
  if (destination !== undefined && !intoDirectory && !noTargetDirectory) {
    const resolution = await context.resolve(destination);
    intoDirectory =
      sources.length > 1 ||
      sources.some((source) => source.glob) ||
      (resolution.kind === 'inside' && resolution.exists && resolution.directory);
  }
  // `ln -s target` alone makes the link in the working directory.
  const directory = destination ?? literalWord('.');
  for (const source of sources) {
    const linkFrom = symbolic
      ? { linkFrom: { word: directory, directory: intoDirectory || destination === undefined } }
      : {};
    // A copy's source that is protected asks as before (it spreads a secret); a link's target is written through it.
    uses.push({ word: source, write: true, ...(link ? {} : { glob: 'source' as const }), ...linkFrom });
    if (intoDirectory || destination === undefined)
      uses.push({ word: entryIn(directory, source), write: true, glob: 'entry' });
  }
  if (destination !== undefined) uses.push({ word: destination, write: true });
  return uses;
}

/** The path `source` gets inside directory `directory` (`dir/<basename of source>`), as a shell word. */
function entryIn(directory: ShellWord, source: ShellWord): ShellWord {
  const base = source.value?.replace(/\/+$/, '').split('/').pop();
  const value = directory.value === undefined || base === undefined ? undefined : `${directory.value}/${base}`;
  return { text: `${directory.text}/${source.text}`, value, glob: directory.glob || source.glob, start: source.start };
}
