// The configuration files of the cluster's Temporal server and Web UI server. Both read YAML, of which JSON is a part,
// so they are written as JSON. The server's is the settings of the auto-setup image in docker-compose.yml: every role
// in one process, persistence and visibility on PostgreSQL with the postgres12 plugin, the same history shard count.
import type { ClusterTls } from './tls.js';
import { DATABASES, HISTORY_SHARDS, SQL_PLUGIN } from './topology.js';

/** Where the server's roles listen: the frontend's gRPC port is the cluster's address, the rest are internal. */
export interface ServerPorts {
  frontend: number;
  frontendHttp: number;
  frontendMembership: number;
  history: number;
  historyMembership: number;
  matching: number;
  matchingMembership: number;
  worker: number;
  workerMembership: number;
}

/**
 * The server's ports laid out around the frontend's as in Temporal's own configurations (7233: history 7234, matching
 * 7235, worker 7239, membership 6933-6939, HTTP 7243), so TEMPORAL_PORT moves them all. The server keeps membership
 * ports in a smallint column, so they stay below 32768.
 */
export function serverPorts(frontend: number): ServerPorts {
  return {
    frontend,
    frontendHttp: frontend + 10,
    frontendMembership: frontend - 300,
    history: frontend + 1,
    historyMembership: frontend - 299,
    matching: frontend + 2,
    matchingMembership: frontend - 298,
    worker: frontend + 6,
    workerMembership: frontend - 294,
  };
}

/** The highest frontend port whose membership ports fit the server's smallint column. */
export const MAX_FRONTEND_PORT = 32_767 + 294;

/** The database the server connects to. */
export interface DatabaseAccess {
  port: number;
  user: string;
  password: string;
}

/**
 * Mutual TLS everywhere the server speaks gRPC: the frontend (and its HTTP API, which shares its TLS settings) and its
 * roles towards each other require a certificate of the cluster's authority; its system worker presents the server's.
 */
function serverTls(tls: ClusterTls): Record<string, unknown> {
  const server = {
    certFile: tls.serverCertFile,
    keyFile: tls.serverKeyFile,
    requireClientAuth: true,
    clientCaFiles: [tls.caFile],
  };
  const client = { serverName: tls.serverName, rootCaFiles: [tls.caFile] };
  return {
    internode: { server, client },
    frontend: { server, client },
    systemWorker: { certFile: tls.serverCertFile, keyFile: tls.serverKeyFile, client },
  };
}

/** The Temporal server's configuration (`<root>/config/<env>.yaml`). */
export function temporalServerConfig(
  ports: ServerPorts,
  database: DatabaseAccess,
  tls: ClusterTls,
): Record<string, unknown> {
  const store = (databaseName: string, maxConns: number) => ({
    sql: {
      pluginName: SQL_PLUGIN,
      databaseName,
      connectAddr: `127.0.0.1:${database.port}`,
      connectProtocol: 'tcp',
      user: database.user,
      password: database.password,
      maxConns,
      maxIdleConns: maxConns,
      maxConnLifetime: '1h',
    },
  });
  const role = (grpcPort: number, membershipPort: number, httpPort?: number) => ({
    rpc: { grpcPort, membershipPort, bindOnLocalHost: true, ...(httpPort === undefined ? {} : { httpPort }) },
  });
  return {
    log: { stdout: true, level: 'warn' },
    persistence: {
      defaultStore: 'postgres-default',
      visibilityStore: 'postgres-visibility',
      numHistoryShards: HISTORY_SHARDS,
      datastores: {
        'postgres-default': store(DATABASES.persistence, 20),
        'postgres-visibility': store(DATABASES.visibility, 10),
      },
    },
    global: { membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' }, tls: serverTls(tls) },
    services: {
      frontend: role(ports.frontend, ports.frontendMembership, ports.frontendHttp),
      history: role(ports.history, ports.historyMembership),
      matching: role(ports.matching, ports.matchingMembership),
      worker: role(ports.worker, ports.workerMembership),
    },
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: {
        active: {
          enabled: true,
          initialFailoverVersion: 1,
          rpcName: 'frontend',
          rpcAddress: `127.0.0.1:${ports.frontend}`,
        },
      },
    },
    dcRedirectionPolicy: { policy: 'noop' },
  };
}

/**
 * The Web UI server's configuration: the frontend to talk to (with the operator's client certificate), where to
 * listen, the codec endpoint it names.
 */
export function uiServerConfig(options: {
  frontend: string;
  port: number;
  namespace: string;
  tls: ClusterTls;
  codecEndpoint?: string;
}): Record<string, unknown> {
  return {
    temporalGrpcAddress: options.frontend,
    tls: {
      caFile: options.tls.caFile,
      certFile: options.tls.clientCertFile,
      keyFile: options.tls.clientKeyFile,
      serverName: options.tls.serverName,
      enableHostVerification: true,
    },
    host: '127.0.0.1',
    port: options.port,
    enableUi: true,
    defaultNamespace: options.namespace,
    cors: { allowOrigins: [`http://127.0.0.1:${options.port}`, `http://localhost:${options.port}`] },
    notifyOnNewVersion: false,
    ...(options.codecEndpoint ? { codec: { endpoint: options.codecEndpoint } } : {}),
  };
}
