// Traces and metrics as an ops team reads them: worker processes exporting to a real Jaeger (OTLP) and serving
// Prometheus, which a real Prometheus scrapes. A run's spans are found in Jaeger by its workflow id and match what the
// run did; a worker SIGKILLed mid-call leaves one trace with the retried attempt in it; the scraped metrics add up to
// the run's own ledger; no prompt, file content or key is in any span.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptTurn } from '../../src/scripted-model/server.js';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import { approveToolCall } from '../../src/protocol/run-messages.js';
import type { AgentInput } from '../../src/core/state.js';
import { agentWorkflow } from '../../src/workflows/agent.js';
import { temporalAddress, workspaceFrom } from '../support/harness.js';
import type { JaegerSpan, JaegerTrace, Observability } from '../support/observability.js';
import { startObservability } from '../support/observability.js';
import { findFreePorts } from '../support/ports.js';
import { pendingApproval, waitFor } from '../support/wait.js';
import type { WorkerProcess } from '../support/worker-process.js';
import { startWorkerProcess, writeWorkflowBundle } from '../support/worker-process.js';

const SECRET = `sk-secret-${randomBytes(6).toString('hex')}`;
const FILE_TEXT = `file content that must stay out of spans ${randomBytes(6).toString('hex')}`;
const service = `durable-agent-e2e-${randomBytes(3).toString('hex')}`;

let observability: Observability;
let connection: Connection;
let client: Client;
let directory: string;
let bundlePath: string;
let metricsPort: number;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  [metricsPort] = (await findFreePorts(1)) as [number];
  observability = await startObservability({ metricsTargets: [`127.0.0.1:${metricsPort}`], scrapeIntervalMs: 500 });
  directory = await mkdtemp(join(os.tmpdir(), 'durable-agent-telemetry-'));
  bundlePath = await writeWorkflowBundle(directory, { tracing: true });
  connection = await Connection.connect({ address: temporalAddress() });
  client = new Client({ connection });
}, 120_000);

afterAll(async () => {
  for (const worker of workers) await worker.kill();
  await connection?.close();
  await observability?.stop();
  if (directory) await rm(directory, { recursive: true, force: true });
});

function startWorker(taskQueue: string, settings?: Record<string, string>): Promise<WorkerProcess> {
  const worker = startWorkerProcess({
    address: temporalAddress(),
    taskQueue,
    storeDir: join(directory, 'store'),
    bundlePath,
    env: {
      OPENAI_API_KEY: SECRET,
      OTEL_SERVICE_NAME: service,
      ...(settings ?? {
        OTEL_EXPORTER_OTLP_ENDPOINT: observability.otlpHttpUrl,
        DURABLE_AGENT_METRICS_PORT: String(metricsPort),
      }),
    },
  });
  void worker.then((started) => workers.push(started));
  return worker;
}

function input(workspace: string, modelUrl: string, askPolicy: AgentInput['askPolicy']): AgentInput {
  return {
    task: `Tidy up. ${SECRET}`,
    workspace,
    selection: { model: 'scripted', baseUrl: modelUrl },
    maxSteps: 10,
    mode: 'default',
    askPolicy,
  };
}

/** The one trace of `workflowId`, once it holds `spans` spans or more (the worker exports in batches). */
async function traceOf(workflowId: string, atLeast: (trace: JaegerTrace) => boolean): Promise<JaegerTrace[]> {
  return waitFor(
    async () => {
      const traces = await observability.findTraces({ service, tags: { temporalWorkflowId: workflowId } });
      return traces.length > 0 && traces.every(atLeast) ? traces : undefined;
    },
    `the trace of ${workflowId} in Jaeger`,
    { timeoutMs: 30_000 },
  );
}

const named = (trace: JaegerTrace, operation: string): JaegerSpan[] =>
  trace.spans.filter((span) => span.operationName === operation);
const tag = (span: JaegerSpan, key: string): unknown => span.tags.find((item) => item.key === key)?.value;

describe('telemetry against Jaeger and Prometheus', () => {
  it('puts a run in one trace whose spans match its history, and the scraped metrics match its ledger', async () => {
    const taskQueue = `telemetry-${randomBytes(4).toString('hex')}`;
    const worker = await startWorker(taskQueue);
    const workspace = await workspaceFrom();
    await writeFile(join(workspace, 'notes.txt'), FILE_TEXT);
    const script: ScriptTurn[] = [
      { content: 'Reading.', tool_calls: [{ id: 'read', name: 'ReadFile', arguments: { path: 'notes.txt' } }] },
      { tool_calls: [{ id: 'rm', name: 'Bash', arguments: { command: 'rm -f notes.txt' } }] },
      { content: 'Done.' },
    ];
    const model = await startScriptedModelServer({ script });
    try {
      const handle = await client.workflow.start(agentWorkflow, {
        workflowId: `agent-telemetry-${randomBytes(4).toString('hex')}`,
        taskQueue,
        args: [input(workspace, model.url, 'wait')],
      });
      await pendingApproval(client, handle.workflowId, 'rm');
      await handle.executeUpdate(approveToolCall, {
        args: [{ tool_call_id: 'rm', decision: 'approve', decided_by: 'ops@example' }],
      });
      const result = await handle.result();
      expect(result.status).toBe('completed');

      const [trace, ...others] = await traceOf(
        handle.workflowId,
        (found) =>
          named(found, 'RunWorkflow:agentWorkflow').length === 1 &&
          named(found, 'chat scripted').length === 3 &&
          named(found, 'approval Bash').length === 1,
      );
      expect(others).toEqual([]);
      const chats = named(trace!, 'chat scripted').sort((a, b) => a.startTime - b.startTime);
      expect(chats.map((span) => tag(span, 'durable_agent.step'))).toEqual([1, 2, 3]);
      expect(chats.map((span) => tag(span, 'gen_ai.response.finish_reasons'))).toEqual([
        '["tool_calls"]',
        '["tool_calls"]',
        '["stop"]',
      ]);
      const tokens = (key: string) => chats.reduce((sum, span) => sum + Number(tag(span, key)), 0);
      expect(tokens('gen_ai.usage.input_tokens')).toBe(result.usage.promptTokens);
      expect(tokens('gen_ai.usage.output_tokens')).toBe(result.usage.completionTokens);
      expect(chats.every((span) => tag(span, 'gen_ai.request.model') === 'scripted')).toBe(true);
      const [read] = named(trace!, 'execute_tool ReadFile');
      expect(tag(read!, 'durable_agent.tool.outcome')).toBe('success');
      const [bash] = named(trace!, 'execute_tool Bash');
      expect(tag(bash!, 'durable_agent.tool.approved')).toBe(true);
      expect(tag(bash!, 'durable_agent.tool.risk_level')).toBeDefined();
      // The wait for the decision is a span of the workflow's, with who decided.
      const [approval] = named(trace!, 'approval Bash');
      expect(tag(approval!, 'durable_agent.approval.decision')).toBe('approve');
      expect(tag(approval!, 'durable_agent.approval.decided_by')).toBe('ops@example');
      expect(Number(tag(approval!, 'durable_agent.approval.wait_ms'))).toBeGreaterThan(0);
      expect(trace!.spans.find((span) => span.spanID === approval!.references[0]?.spanID)?.operationName).toBe(
        'RunWorkflow:agentWorkflow',
      );
      // Each tool span is inside its activity's span, inside the workflow's trace.
      const parent = trace!.spans.find((span) => span.spanID === read!.references[0]?.spanID);
      expect(parent?.operationName).toBe('RunActivity:ReadFile');
      // Content stays out unless the operator turns it on; the worker's key never goes in.
      const everything = JSON.stringify(trace);
      expect(everything).not.toContain(FILE_TEXT);
      expect(everything).not.toContain('Tidy up.');
      expect(everything).not.toContain(SECRET);

      const scraped = async (promql: string): Promise<number> =>
        (await observability.query(promql)).reduce((sum, sample) => sum + sample.value, 0);
      const run = `workflowType="agentWorkflow",taskQueue="${taskQueue}"`;
      await waitFor(
        async () =>
          (await scraped(`durable_agent_model_tokens_total{kind="input",${run}}`)) === result.usage.promptTokens &&
          (await scraped(`durable_agent_runs_total{status="completed",${run}}`)) === 1
            ? true
            : undefined,
        'Prometheus to scrape the run',
        { timeoutMs: 30_000 },
      );
      expect(await scraped(`durable_agent_model_tokens_total{kind="output",${run}}`)).toBe(
        result.usage.completionTokens,
      );
      expect(await scraped(`durable_agent_steps_total{${run}}`)).toBe(result.steps);
      expect(await scraped(`durable_agent_tool_calls_total`)).toBeGreaterThanOrEqual(result.toolCalls);
      expect(await scraped(`durable_agent_tool_calls_total{tool="Bash",outcome="success"}`)).toBe(1);
      expect(await scraped(`durable_agent_approvals_requested_total{${run}}`)).toBe(1);
      expect(await scraped(`durable_agent_approvals_decided_total{${run}}`)).toBe(1);
      expect(await scraped(`durable_agent_store_bytes_written_total{taskQueue="${taskQueue}"}`)).toBeGreaterThan(0);
      // The SDK's own worker metrics are on the same endpoint.
      expect(await scraped(`temporal_workflow_completed`)).toBeGreaterThanOrEqual(1);
      expect(JSON.stringify(await observability.query(`{__name__=~"durable_agent_.*"}`))).not.toContain(SECRET);
    } finally {
      await model.close();
      // Its metrics port is the next test's.
      await worker.stop();
    }
  }, 120_000);

  it('keeps a run whose worker was SIGKILLed mid-call in one trace, the retried attempt in it', async () => {
    const taskQueue = `telemetry-kill-${randomBytes(4).toString('hex')}`;
    const first = await startWorker(taskQueue);
    const workspace = await workspaceFrom();
    const model = await startScriptedModelServer({
      // The killed attempt's request took a turn too: the retry is answered by the next one.
      script: [
        { tool_calls: [{ id: 'ls', name: 'Glob', arguments: { pattern: '*' } }] },
        { content: 'Survived.' },
        { content: 'Survived.' },
      ],
      latencyMs: 1_500,
    });
    try {
      const handle = await client.workflow.start(agentWorkflow, {
        workflowId: `agent-telemetry-kill-${randomBytes(4).toString('hex')}`,
        taskQueue,
        args: [input(workspace, model.url, 'deny')],
      });
      // The second model call is under way and the first step's spans are in Jaeger (a killed worker loses the spans
      // of its last second, which it had not sent yet).
      await waitFor(async () => (model.requests.length >= 2 ? true : undefined), 'the second model call', {
        timeoutMs: 30_000,
      });
      await traceOf(handle.workflowId, (found) => named(found, 'execute_tool Glob').length === 1);
      await first.kill();
      await startWorker(taskQueue);
      expect((await handle.result()).answer).toBe('Survived.');
      const [trace, ...others] = await traceOf(
        handle.workflowId,
        (found) =>
          named(found, 'chat scripted').some((span) => tag(span, 'durable_agent.attempt') === 2) &&
          named(found, 'RunWorkflow:agentWorkflow').length > 0,
      );
      expect(others).toEqual([]);
      // The retry's span hangs under the same workflow span as the first step's, which the first worker exported.
      const attempts = named(trace!, 'chat scripted').map((span) => tag(span, 'durable_agent.attempt'));
      expect(attempts).toEqual(expect.arrayContaining([1, 2]));
      expect(named(trace!, 'RunWorkflow:agentWorkflow')).toHaveLength(1);
      expect(named(trace!, 'execute_tool Glob')).toHaveLength(1);
    } finally {
      await model.close();
    }
  }, 120_000);

  it.each(['grpc', 'http/json'])(
    'exports the same spans over OTLP %s',
    async (protocol) => {
      const taskQueue = `telemetry-${protocol.replace('/', '-')}-${randomBytes(4).toString('hex')}`;
      const worker = await startWorker(taskQueue, {
        OTEL_EXPORTER_OTLP_ENDPOINT: protocol === 'grpc' ? observability.otlpGrpcUrl : observability.otlpHttpUrl,
        OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
      });
      const model = await startScriptedModelServer({
        script: [{ tool_calls: [{ id: 'ls', name: 'Glob', arguments: { pattern: '*' } }] }, { content: 'Listed.' }],
      });
      try {
        const handle = await client.workflow.start(agentWorkflow, {
          workflowId: `agent-telemetry-${randomBytes(4).toString('hex')}`,
          taskQueue,
          args: [input(await workspaceFrom(), model.url, 'deny')],
        });
        expect((await handle.result()).answer).toBe('Listed.');
        const [trace] = await traceOf(
          handle.workflowId,
          (found) =>
            named(found, 'RunWorkflow:agentWorkflow').length === 1 && named(found, 'chat scripted').length === 2,
        );
        expect(named(trace!, 'execute_tool Glob')).toHaveLength(1);
      } finally {
        await model.close();
        await worker.stop();
      }
    },
    60_000,
  );
});
