// The trace and metrics backends that the telemetry tests and `npm run observability` run: Jaeger takes a span over
// OTLP/HTTP and finds it again by a tag, Prometheus scrapes a metrics endpoint and answers a query over it, and takes
// every query of the Grafana dashboard.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JaegerBinaryError } from '../../src/host/jaeger-binary.js';
import { PrometheusBinaryError } from '../../src/host/prometheus-binary.js';
import { loadDashboard, startObservability } from '../support/observability.js';
import type { Observability } from '../support/observability.js';
import { waitFor } from '../support/wait.js';

const PROBE_METRICS =
  '# HELP durable_agent_probe_total A probe.\n# TYPE durable_agent_probe_total counter\ndurable_agent_probe_total 3\n';

let backends: Observability | undefined;
let problem: unknown;
let metricsServer: http.Server | undefined;

// Binaries the test setup could not provision skip these tests on a developer's machine (the setup said why); in CI,
// and for any other failure to start, every test fails with the reason.
const mayskip = (error: unknown): error is Error =>
  (error instanceof JaegerBinaryError || error instanceof PrometheusBinaryError) && process.env.CI !== 'true';

beforeAll(async () => {
  metricsServer = http.createServer((request, response) => {
    response.writeHead(request.url === '/metrics' ? 200 : 404, { 'content-type': 'text/plain; version=0.0.4' });
    response.end(request.url === '/metrics' ? PROBE_METRICS : '');
  });
  await new Promise<void>((resolve) => metricsServer!.listen(0, '127.0.0.1', resolve));
  const { port } = metricsServer.address() as AddressInfo;
  try {
    backends = await startObservability({ metricsTargets: [`127.0.0.1:${port}`], scrapeIntervalMs: 500 });
  } catch (error) {
    problem = error;
    if (mayskip(error)) console.warn(`observability backend tests skipped: ${error.message}`);
  }
}, 120_000);

afterAll(async () => {
  await backends?.stop();
  await new Promise((resolve) => metricsServer?.close(resolve));
});

function running(context: TestContext): Observability {
  if (backends) return backends;
  if (mayskip(problem)) context.skip(`observability backends unavailable: ${problem.message}`);
  throw problem instanceof Error ? problem : new Error(`observability backends did not start: ${String(problem)}`);
}

describe('observability backends', () => {
  it('Jaeger takes a span over OTLP/HTTP and finds it by service and tag', async (context) => {
    const jaeger = running(context);
    const traceId = randomBytes(16).toString('hex');
    const spanId = randomBytes(8).toString('hex');
    const probe = randomBytes(6).toString('hex');
    const started = BigInt(Date.now()) * 1_000_000n;
    const span = {
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'observability-probe' } }] },
          scopeSpans: [
            {
              scope: { name: 'probe' },
              spans: [
                {
                  traceId,
                  spanId,
                  name: 'probe span',
                  kind: 1,
                  startTimeUnixNano: String(started),
                  endTimeUnixNano: String(started + 2_000_000n),
                  attributes: [{ key: 'probe.id', value: { stringValue: probe } }],
                },
              ],
            },
          ],
        },
      ],
    };
    const response = await fetch(`${jaeger.otlpHttpUrl}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(span),
    });
    expect(response.status).toBe(200);

    // The batch processor hands spans to storage within a fraction of a second.
    const [found] = await waitFor(async () => {
      const traces = await jaeger.findTraces({ service: 'observability-probe', tags: { 'probe.id': probe } });
      return traces.length > 0 ? traces : undefined;
    }, 'the probe span in Jaeger');
    expect(found!.traceID).toBe(traceId);
    expect(found!.spans).toEqual([
      expect.objectContaining({
        spanID: spanId,
        operationName: 'probe span',
        duration: 2000,
        tags: expect.arrayContaining([{ key: 'probe.id', type: 'string', value: probe }]),
      }),
    ]);
    expect((await jaeger.trace(traceId))?.spans.map((each) => each.spanID)).toEqual([spanId]);
    expect(await jaeger.findTraces({ service: 'observability-probe', tags: { 'probe.id': 'another' } })).toEqual([]);
    expect(await jaeger.trace(randomBytes(16).toString('hex'))).toBeUndefined();
  });

  it('Prometheus scrapes a metrics endpoint and answers a query over what it read', async (context) => {
    const prometheus = running(context);
    const samples = await waitFor(async () => {
      const answer = await prometheus.query('durable_agent_probe_total');
      return answer.length > 0 ? answer : undefined;
    }, 'durable_agent_probe_total in Prometheus');
    expect(samples).toEqual([
      { metric: expect.objectContaining({ __name__: 'durable_agent_probe_total', job: 'durable-agent' }), value: 3 },
    ]);
    expect(await prometheus.query('sum(durable_agent_probe_total) * 2')).toEqual([{ metric: {}, value: 6 }]);
    await expect(prometheus.query('sum(')).rejects.toThrow(/Prometheus refused sum\(/);
  });

  it('Prometheus takes every query of the Grafana dashboard', async (context) => {
    const prometheus = running(context);
    const queries = loadDashboard().panels.flatMap((panel) =>
      (panel.targets ?? []).map((target) => ({ panel: panel.title, expr: target.expr })),
    );
    expect(queries.length).toBeGreaterThan(0);
    for (const { panel, expr } of queries) {
      // Grafana puts a duration of at least four scrape intervals in place of $__rate_interval.
      const answered = await prometheus.query(expr.replaceAll('$__rate_interval', '1m')).then(
        () => 'answered',
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
      expect(answered, `${panel}: ${expr}`).toBe('answered');
    }
  });
});
