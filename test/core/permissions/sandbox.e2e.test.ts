// core/permissions is imported by the workflow: it must bundle for the sandbox and decide the same way inside it.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker, bundleWorkflowCode } from '@temporalio/worker';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { BashClassification } from '../../../src/protocol/bash-classification.js';

const workflowsPath = fileURLToPath(new URL('./fixtures/permission-workflow.ts', import.meta.url));
const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

const classification: BashClassification = {
  level: 'network_write',
  rule: 'package_install',
  reason: 'npm install downloads or publishes packages',
  outcome: 'ask',
  segments: [
    {
      text: 'npm install lodash',
      level: 'network_write',
      rule: 'package_install',
      reason: 'npm install downloads or publishes packages',
      action: 'ask',
      approvalKey: 'npm install',
    },
  ],
};

let code: string;

beforeAll(async () => {
  ({ code } = await bundleWorkflowCode({ workflowsPath, logger: quiet }));
});

describe('permissions in the workflow sandbox', () => {
  it('bundles without Node builtins', () => {
    expect(code).toContain('permissionWorkflow');
    expect(code).toContain('protected_path');
    for (const forbidden of ['node:fs', 'node:path', 'execa']) expect(code).not.toContain(forbidden);
  });

  it('decides inside a real workflow run', async () => {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
    const address = inject('temporalAddress');
    const namespace = inject('temporalNamespace');
    const taskQueue = `permissions-${randomUUID()}`;
    const workerConnection = await NativeConnection.connect({ address });
    const connection = await Connection.connect({ address });
    try {
      const worker = await Worker.create({
        connection: workerConnection,
        namespace,
        taskQueue,
        workflowBundle: { code },
      });
      const client = new Client({ connection, namespace });
      const result = await worker.runUntil(
        client.workflow.execute('permissionWorkflow', {
          args: [classification, ['npm install']],
          taskQueue,
          workflowId: `permissions-${randomUUID()}`,
        }),
      );
      expect(result).toMatchObject({
        bashDecision: { action: 'allow', rule: 'approved_in_task' },
        writeDecision: { action: 'ask', rule: 'protected_path' },
        rule: { action: 'allow' },
        error: { code: 'PERMISSION_DENIED', details: { permission: { action: 'ask', effective_action: 'deny' } } },
      });
    } finally {
      await connection.close();
      await workerConnection.close();
    }
  });
});
