// The workflow code must bundle for Temporal's sandbox: no Node builtins, no openai/execa, no activity values.
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { sharedWorkflowModules, workflowsPath } from '../../src/worker.js';

describe('workflow bundle', () => {
  it('bundles src/workflows and the preloaded pure layers without Node-only modules', async () => {
    const { code } = await bundleWorkflowCode({
      workflowsPath,
      preloadModules: sharedWorkflowModules(),
      logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} },
    });
    expect(code).toContain('agentWorkflow');
    // The pure layers are preloaded whole, so every module of them must be workflow-safe too.
    expect(code).toContain('src/core/price-table.ts');
    for (const forbidden of ['node:fs', 'node:child_process', 'execa', 'new OpenAI('])
      expect(code).not.toContain(forbidden);
  });

  it('preloads the stack depth setting, every module of protocol, tools and core, and nothing else of the shell', () => {
    const modules = sharedWorkflowModules().map((file) =>
      path.relative(path.dirname(path.dirname(workflowsPath)), file),
    );
    expect(modules).toContain(path.join('protocol', 'content-key.ts'));
    expect(modules).toContain(path.join('tools', 'index.ts'));
    expect(modules).toContain(path.join('core', 'run', 'steps.ts'));
    expect(modules.filter((file) => !/^(protocol|tools|core)\//.test(file) || file.endsWith('.d.ts'))).toEqual([
      path.join('workflows', 'stack-depth.ts'),
    ]);
  });
});
