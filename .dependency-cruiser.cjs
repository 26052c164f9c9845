// The import graph's rules (docs/architecture.md#layers): arrows run one way, from the Node side to the workflow
// side and, inside the workflow side, workflows -> core -> tools -> protocol; no file imports itself through others.
// Type-only imports count: a type that crosses a boundary belongs to the side both can see.
const WORKFLOW_SIDE = '^src/(protocol|tools|core|workflows)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Files that import each other in a loop: move the shared part into a file both import.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'workflow-side-stays-workflow-safe',
      severity: 'error',
      comment:
        'Workflow-side code is bundled into the workflow isolate: it never imports the Node side, not even types.',
      from: { path: WORKFLOW_SIDE },
      to: { path: '^src/', pathNot: WORKFLOW_SIDE },
    },
    {
      name: 'protocol-imports-nothing',
      severity: 'error',
      comment: 'src/protocol is what both sides share: it stands on nothing else in src/.',
      from: { path: '^src/protocol/' },
      to: { path: '^src/', pathNot: '^src/protocol/' },
    },
    {
      name: 'tools-import-only-protocol',
      severity: 'error',
      comment: 'Tool contracts depend on the protocol alone; the rules in core/ use the contracts, not the reverse.',
      from: { path: '^src/tools/' },
      to: { path: '^src/', pathNot: '^src/(tools|protocol)/' },
    },
    {
      name: 'core-imports-only-protocol-and-tools',
      severity: 'error',
      comment: 'The pure rules know the protocol and the tool contracts, never the Temporal shell that calls them.',
      from: { path: '^src/core/' },
      to: { path: '^src/', pathNot: '^src/(core|tools|protocol)/' },
    },
    {
      name: 'no-command-imports-another',
      severity: 'error',
      comment: 'A command shares code through a module of its own, not through another command.',
      from: { path: '^src/cli/commands/([^/]+)' },
      to: { path: '^src/cli/commands/', pathNot: '^src/cli/commands/$1' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.d\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
