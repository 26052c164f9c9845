// docker-compose.yml, loaded and validated by the Compose specification's own loader, and checked against the one
// place both it and `npm run cluster` take their settings from (src/cluster/topology.ts).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  CLUSTER_VARIABLES,
  DATABASES,
  SEARCH_ATTRIBUTE_TYPES,
  SQL_PLUGIN,
  TEMPORAL_SERVER_VERSION,
  TEMPORAL_UI_VERSION,
  NATS_SERVER_VERSION,
} from '../../src/cluster/topology.js';
import type { ClusterVariable } from '../../src/cluster/topology.js';
import { JAEGER_RELEASE } from '../../src/host/jaeger-binary.js';
import { composeCheck, loadCompose } from './compose-check.js';
import type { ComposeProject } from './compose-check.js';

const composeFile = fileURLToPath(new URL('../../docker-compose.yml', import.meta.url));
let project: ComposeProject;

beforeAll(async () => {
  await composeCheck();
  const loaded = await loadCompose(composeFile);
  if (!loaded.ok) throw new Error(`docker-compose.yml does not load: ${loaded.error}`);
  project = loaded.project;
}, 10 * 60_000);

describe('docker-compose.yml', () => {
  it('is valid for the Compose loader, and the loader rejects what is not', async () => {
    expect(Object.keys(project.services).sort()).toEqual(
      [
        'codec',
        'create-bucket',
        'jaeger',
        'minio',
        'nats',
        'postgresql',
        'prometheus',
        'register-search-attributes',
        'temporal',
        'temporal-ui',
        'worker',
      ].sort(),
    );
    const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'compose-check-'));
    try {
      const broken = path.join(directory, 'docker-compose.yml');
      await fs.writeFile(
        broken,
        'services:\n  temporal:\n    image: temporalio/auto-setup\n    ports: 7233\n    restart: sometimes\n',
      );
      const loaded = await loadCompose(broken);
      expect(loaded.ok).toBe(false);
    } finally {
      await fs.rm(directory, { recursive: true, force: true });
    }
  });

  it('runs the versions npm run cluster runs', () => {
    const { services } = project;
    expect(services.temporal!.image).toBe(`temporalio/auto-setup:${TEMPORAL_SERVER_VERSION}`);
    expect(services['register-search-attributes']!.image).toBe(
      `temporalio/admin-tools:${CLUSTER_VARIABLES.TEMPORAL_ADMIN_TOOLS_VERSION}`,
    );
    expect(services['temporal-ui']!.image).toBe(`temporalio/ui:${TEMPORAL_UI_VERSION}`);
    expect(services.postgresql!.image).toBe(`postgres:${CLUSTER_VARIABLES.POSTGRES_VERSION}`);
    expect(services.nats!.image).toBe(`nats:${NATS_SERVER_VERSION}`);
  });

  it('puts Temporal on PostgreSQL with the same plugin, credentials and namespace', () => {
    const environment = project.services.temporal!.environment!;
    expect(environment.DB).toBe(SQL_PLUGIN);
    expect(environment.POSTGRES_USER).toBe(CLUSTER_VARIABLES.POSTGRES_USER);
    expect(environment.POSTGRES_PWD).toBe(CLUSTER_VARIABLES.POSTGRES_PASSWORD);
    expect(environment.DEFAULT_NAMESPACE).toBe(CLUSTER_VARIABLES.TEMPORAL_NAMESPACE);
    // The auto-setup image's database names, which npm run cluster creates too.
    expect(environment.DBNAME ?? 'temporal').toBe(DATABASES.persistence);
    expect(environment.VISIBILITY_DBNAME ?? 'temporal_visibility').toBe(DATABASES.visibility);
  });

  it('registers exactly the agent search attributes', () => {
    const script = (project.services['register-search-attributes']!.command ?? []).join('\n');
    const list = /for attribute in ([^;]+);/.exec(script)?.[1]?.trim().split(/\s+/);
    expect(list).toEqual([...SEARCH_ATTRIBUTE_TYPES]);
  });

  it('publishes the ports and passes the environment names npm run cluster uses', () => {
    const { services } = project;
    expect(services.temporal!.ports).toEqual([
      expect.objectContaining({ target: 7233, published: CLUSTER_VARIABLES.TEMPORAL_PORT }),
    ]);
    expect(services['temporal-ui']!.ports).toEqual([
      expect.objectContaining({ target: 8080, published: CLUSTER_VARIABLES.TEMPORAL_UI_PORT }),
    ]);
    const worker = services.worker!.environment!;
    expect(worker.TEMPORAL_NAMESPACE).toBe(CLUSTER_VARIABLES.TEMPORAL_NAMESPACE);
    expect(worker.DURABLE_AGENT_TASK_QUEUE).toBe(CLUSTER_VARIABLES.DURABLE_AGENT_TASK_QUEUE);
    expect(worker.DURABLE_AGENT_TOOL_QUEUE).toBe(CLUSTER_VARIABLES.DURABLE_AGENT_TOOL_QUEUE);
    expect(services.nats!.ports).toEqual([
      expect.objectContaining({ target: 4222, published: CLUSTER_VARIABLES.NATS_PORT, host_ip: '127.0.0.1' }),
    ]);
    expect(services.nats!.command).toEqual(expect.arrayContaining(['--jetstream']));
    expect(worker.DURABLE_AGENT_LIVE_URL).toBe('nats://nats:4222');
    expect(worker.DURABLE_AGENT_LIVE_TOKEN).toBe((services.nats!.command ?? []).at(-1));
    expect(services.codec!.ports).toEqual([
      expect.objectContaining({ target: 8234, published: CLUSTER_VARIABLES.DURABLE_AGENT_CODEC_PORT }),
    ]);
  });

  it("runs the Jaeger release npm run observability builds, and sends the workers' telemetry to it", () => {
    const { services } = project;
    expect(services.jaeger!.image).toBe(`jaegertracing/jaeger:${JAEGER_RELEASE}`);
    expect(services.jaeger!.ports!.map((port) => port.target)).toEqual([16686, 4317, 4318]);
    const worker = services.worker!.environment!;
    expect(worker.OTEL_EXPORTER_OTLP_ENDPOINT).toBe('http://jaeger:4318');
    // Prometheus (deploy/prometheus.yml) scrapes this port on every replica, across the compose network.
    expect(worker.DURABLE_AGENT_METRICS_PORT).toBe('9464');
    expect(worker.DURABLE_AGENT_METRICS_HOST).toBe('0.0.0.0');
  });

  it.each(Object.keys(CLUSTER_VARIABLES) as ClusterVariable[])('reads %s from the environment', async (name) => {
    // A value only this variable can have put there: the compose file reads the variable of that name.
    const sentinel = name.endsWith('_PORT') ? '19999' : `sentinel-${name.toLowerCase()}`;
    const loaded = await loadCompose(composeFile, { [name]: sentinel });
    if (!loaded.ok) throw new Error(loaded.error);
    expect(JSON.stringify(loaded.project)).toContain(sentinel);
    expect(JSON.stringify(project)).not.toContain(sentinel);
  });
});
