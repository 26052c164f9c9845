// Flat config: type-aware rules everywhere, plus the boundary of the workflow side, the code bundled into Temporal's workflow isolate.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeOnly = [
  'fs',
  'child_process',
  'path',
  'os',
  'crypto',
  'net',
  'http',
  'https',
  'stream',
  'worker_threads',
  'url',
  'util',
  'events',
  'process',
  'readline',
  'dns',
  'tls',
  'zlib',
  'buffer',
  'timers',
];

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'examples/**', 'test/fixtures/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          allowDefaultProject: ['eslint.config.js', '.dependency-cruiser.cjs', 'bin/*.js', 'scripts/*.mjs'],
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'separate-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
    },
  },
  {
    // Workflow, core and tool-contract code ends up in Temporal's deterministic workflow isolate.
    files: ['src/workflows/**/*.ts', 'src/core/**/*.ts', 'src/tools/**/*.ts', 'src/protocol/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            ...nodeOnly.flatMap((name) => [
              { name, message: 'Node builtins are not allowed in workflow-side code.' },
              { name: `node:${name}`, message: 'Node builtins are not allowed in workflow-side code.' },
            ]),
            { name: 'openai', message: 'Model clients live in providers/ and activities/.' },
            { name: 'execa', message: 'Processes are spawned in activities/.' },
            {
              name: '@temporalio/activity',
              message: 'Activity code is not allowed in the workflow isolate.',
              allowTypeImports: true,
            },
            {
              name: '@temporalio/client',
              message: 'Client code is not allowed in the workflow isolate.',
              allowTypeImports: true,
            },
            {
              name: '@temporalio/worker',
              message: 'Worker code is not allowed in the workflow isolate.',
              allowTypeImports: true,
            },
          ],
          patterns: [
            {
              group: [
                '**/activities/**',
                '**/providers/**',
                '**/scripted-model/**',
                '**/store/**',
                '**/history/**',
                '**/host/**',
                '**/dev-server/**',
                '**/cluster/**',
                '**/authorization/**',
                '**/json-schema/**',
                '**/mcp-config/**',
                '**/cli/**',
                '**/worker*',
                '**/config*',
              ],
              message:
                'Workflow-side code never imports the Node side, not even types: share them through src/protocol.',
            },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'setTimeout', message: 'Use workflow sleep.' },
        { name: 'process', message: 'No environment in workflow-side code.' },
      ],
    },
  },
  {
    // Pure functions take time as data; only workflow code reads Temporal's deterministic clock.
    files: ['src/core/**/*.ts', 'src/tools/**/*.ts', 'src/protocol/**/*.ts'],
    rules: {
      'no-restricted-globals': [
        'error',
        { name: 'Date', message: 'Take time as data.' },
        { name: 'setTimeout', message: 'Pure code does not wait.' },
        { name: 'process', message: 'No environment in workflow-side code.' },
      ],
    },
  },
  {
    files: ['.dependency-cruiser.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable' } },
  },
  {
    files: ['bin/*.js'],
    languageOptions: { globals: { process: 'readonly' } },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'soak/**/*.ts', 'scripts/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
