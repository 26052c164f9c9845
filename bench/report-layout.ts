// The fixed text of docs/benchmarks.md around the blocks the sections write.

export const REPORT_INTRO = `
# Benchmarks

Written by \`npm run bench\` (bench/run.ts); edits by hand are overwritten. Every figure is a ratio of two things
measured side by side in the same run, alternated and repeated where it is a time, so the ratios carry over to other
machines where the absolute numbers do not. Each block says when, on what machine and under what load it was measured.
\`npm run bench -- <id>\` measures the sections whose id is or starts with \`<id>\` again (\`durable\` for every
durable-run section, \`grep\` for the three grep ones) and keeps the other blocks as they were.
\`BENCH_QUICK=1 npm run bench -- durable\` makes every durable run short, to check the code in a minute; it writes to a
temporary directory, not here.

*ours/baseline*: below 1 means ours is faster or smaller. *per-run range*: the lowest and highest ratio of single
paired runs (for byte counts: of single steps), the noise around the median.
`;

/** Text placed before the first block of the section it is keyed by. */
export const REPORT_HEADINGS: Readonly<Record<string, string>> = {
  'cli-latency': '## CLI',
  'cli-path': `
The compiled CLI in a fresh process against the embedded server (SQLite) and its background worker, as a user runs
it. *Workflow started* is the server's WorkflowExecutionStarted event time minus the moment the bench spawned the
process (same machine, same clock); *exit* is when the process ended. The baselines start the same workflow with the
same signed input through the Temporal CLI. The 30-step rows run \`durable-agent run\` from spawn to exit (start-up,
following and exit included) against the in-process floor making the same model calls to the same scripted server.
Beside them, Temporal alone: the concurrency section's floor workflow (the same step shape, no agent code) on the same
embedded server, its worker in the bench's process and no CLI, against the same in-process floor.
`,
  'live-output': `
## Live output

A chunk's way from the scripted model (timestamped as it is handed to the socket) to the output of
\`durable-agent run --stream\` (timestamped as the bench reads it from the CLI's stderr), on the embedded server: the
background worker's openai client, the model-call activity, the state directory's live file, fs.watch in the CLI. The
baseline is the same chunks read by the openai SDK in a process that prints each one: the same path without durability.
The history row runs the same task with \`--stream\` and \`--no-stream\` and compares the two histories.
`,
  glob: '## Tools',
  checkpoints: `
## Workspace checkpoints

What docs/checkpoints.md describes, measured on its own: a workspace of 10,000 files of 4 KB (25 top directories of 20 modules of 20 files),
checkpointed by one checkpointer (one worker's stat cache, warm after its first checkpoint) into a directory store,
against git doing the same on the same tree in its own processes.
`,
  'durable-tax': `
## Durable runs

A durable run is a real agent run: the workflow on a Temporal dev server the bench starts on this machine (SQLite),
one worker in the bench's process made by \`createAgentWorkers\` with a directory content store, and the scripted
model over OpenAI-compatible HTTP with a simulated latency, reached through the \`openai\` client. The *in-process
floor* makes the same model calls through the same provider code and the same tool calls through the same activity
functions (\`createActivities\`) in a plain loop: the same work without a server, history or workflow tasks. The
*inline transcript* run passes the whole transcript through history with every model call, as a design without the
content store would (\`AgentInput.inlineTranscript\`, for this comparison only), on a worker whose External Storage
threshold is out of reach, so that its payloads stay in history as they would without the store. The chart is drawn
again when all durable sections run together (\`npm run bench -- durable\`).

![History bytes per step for the content store and an inline transcript, and the durable-run ratios](img/bench-durable-runs.png)

*Left: the history bytes each step adds, with the content store and with the transcript inline (log–log); the inline
line drops where compaction shortens the transcript, the store line's spikes are the steps that compact, and the dots
are the bytes each step writes to the store. Right: this section's ratios on a log scale; a red tick is a target
ceiling, a red bar is over it.*
`,
};
