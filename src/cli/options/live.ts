// Node: the options that choose live output, shared by the commands that follow a run (`run`, `watch`).

/** `--stream` / `--no-stream`. */
export const liveOutputOptions = {
  stream: {
    type: 'boolean',
    default: false,
    help: "show the model's output as it streams: its text, reasoning (dim) and tool calls as they are assembled, a retried call's superseded attempt marked (default: on when stderr is a terminal); with --json, each live event as one JSON line on stderr",
  },
  'no-stream': { type: 'boolean', default: false, help: 'only the progress lines, never the live output' },
} as const;
