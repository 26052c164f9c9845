// The workflow code must bundle for Temporal's sandbox: no Node builtins, no openai/execa, no activity values.
import { bundleWorkflowCode } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { workflowsPath } from '../../src/worker.js';

describe('workflow bundle', () => {
  it('bundles src/workflows without Node-only modules', async () => {
    const { code } = await bundleWorkflowCode({
      workflowsPath,
      logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} },
    });
    expect(code).toContain('agentWorkflow');
    for (const forbidden of ['node:fs', 'node:child_process', 'execa', 'new OpenAI('])
      expect(code).not.toContain(forbidden);
  });
});
