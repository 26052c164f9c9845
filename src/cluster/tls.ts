// The cluster's mutual TLS: a certificate authority of its own, made with openssl on first start under
// <cluster>/tls (0700, keys 0600) and kept for later starts, one certificate for the server (its frontend, its roles
// talking to each other, its system worker) and one for the operator's clients (the CLI, the workers, the Web UI
// server). The frontend requires a client certificate of this authority: a client without one is refused at the
// handshake, before any request.
import fsp from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { ClusterError } from './errors.js';

/** The name the server's certificate is issued to and clients check (it also carries IP 127.0.0.1). */
export const CLUSTER_SERVER_NAME = 'localhost';

/** Where the cluster's TLS files are. */
export interface ClusterTls {
  caFile: string;
  serverCertFile: string;
  serverKeyFile: string;
  clientCertFile: string;
  clientKeyFile: string;
  serverName: string;
}

/** The files under `directory`/tls, whether or not they exist yet. */
export function clusterTlsFiles(directory: string): ClusterTls {
  const tls = path.join(directory, 'tls');
  return {
    caFile: path.join(tls, 'ca.pem'),
    serverCertFile: path.join(tls, 'server.pem'),
    serverKeyFile: path.join(tls, 'server.key'),
    clientCertFile: path.join(tls, 'client.pem'),
    clientKeyFile: path.join(tls, 'client.key'),
    serverName: CLUSTER_SERVER_NAME,
  };
}

/**
 * Temporal's client configuration for these files (the variables @temporalio/envconfig and the `temporal` CLI read):
 * what a CLI, a worker or a test sets to reach the cluster.
 */
export function clusterTlsEnvironment(tls: ClusterTls): Record<string, string> {
  return {
    TEMPORAL_TLS: 'true',
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: tls.caFile,
    TEMPORAL_TLS_CLIENT_CERT_PATH: tls.clientCertFile,
    TEMPORAL_TLS_CLIENT_KEY_PATH: tls.clientKeyFile,
    TEMPORAL_TLS_SERVER_NAME: tls.serverName,
  };
}

async function exists(file: string): Promise<boolean> {
  return await fsp.access(file).then(
    () => true,
    () => false,
  );
}

/** The cluster's TLS files, made on first use: a CA, then the server's and the clients' certificates signed by it. */
export async function ensureClusterTls(directory: string, log: (line: string) => void): Promise<ClusterTls> {
  const tls = clusterTlsFiles(directory);
  const files = [tls.caFile, tls.serverCertFile, tls.serverKeyFile, tls.clientCertFile, tls.clientKeyFile];
  if ((await Promise.all(files.map(exists))).every(Boolean)) return tls;
  const folder = path.dirname(tls.caFile);
  // Made whole in a fresh folder, then moved into place: an interrupted start never leaves half an authority.
  await fsp.rm(folder, { recursive: true, force: true });
  const work = `${folder}.${process.pid}.tmp`;
  await fsp.rm(work, { recursive: true, force: true });
  await fsp.mkdir(work, { recursive: true, mode: 0o700 });
  const inWork = (file: string) => path.join(work, path.basename(file));
  const caKey = path.join(work, 'ca.key');
  const key = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  await openssl([
    'req',
    '-x509',
    ...key,
    '-keyout',
    caKey,
    '-out',
    inWork(tls.caFile),
    '-days',
    '3650',
    '-subj',
    '/CN=durable-agent cluster CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  const issue = async (name: string, certFile: string, keyFile: string, extensions: string) => {
    const request = path.join(work, `${name}.csr`);
    const extensionFile = path.join(work, `${name}.ext`);
    await fsp.writeFile(extensionFile, extensions);
    await openssl(['req', ...key, '-keyout', inWork(keyFile), '-out', request, '-subj', `/CN=${name}`]);
    await openssl([
      'x509',
      '-req',
      '-in',
      request,
      '-CA',
      inWork(tls.caFile),
      '-CAkey',
      caKey,
      '-CAcreateserial',
      '-out',
      inWork(certFile),
      '-days',
      '825',
      '-extfile',
      extensionFile,
    ]);
    await fsp.chmod(inWork(keyFile), 0o600);
  };
  // The server's certificate is also its roles' client certificate towards each other and its system worker's.
  await issue(
    CLUSTER_SERVER_NAME,
    tls.serverCertFile,
    tls.serverKeyFile,
    `basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth,clientAuth\n` +
      `subjectAltName=DNS:${CLUSTER_SERVER_NAME},IP:127.0.0.1\n`,
  );
  await issue(
    'durable-agent-operator',
    tls.clientCertFile,
    tls.clientKeyFile,
    'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n',
  );
  await fsp.chmod(caKey, 0o600);
  for (const leftover of await fsp.readdir(work))
    if (/\.(csr|ext|srl)$/.test(leftover)) await fsp.rm(path.join(work, leftover));
  await fsp.rename(work, folder);
  log(`Made the cluster's certificate authority and certificates in ${folder} (mutual TLS)`);
  return tls;
}

async function openssl(args: string[]): Promise<void> {
  const result = await execa('openssl', args, { reject: false, all: true, stdin: 'ignore' }).catch(
    (error: unknown) => ({ failed: true, exitCode: undefined, all: String(error) }),
  );
  if (result.failed)
    throw new ClusterError(
      `openssl ${args[0]} failed (exit ${result.exitCode ?? 'none'}) making the cluster's TLS certificates: ` +
        `${result.all ?? ''}`.trim(),
    );
}

/** The SDK's TLS options for these files (read now): how this process connects to the cluster. */
export async function clusterTlsOptions(tls: ClusterTls): Promise<{
  serverNameOverride: string;
  serverRootCACertificate: Buffer;
  clientCertPair: { crt: Buffer; key: Buffer };
}> {
  return {
    serverNameOverride: tls.serverName,
    serverRootCACertificate: await fsp.readFile(tls.caFile),
    clientCertPair: { crt: await fsp.readFile(tls.clientCertFile), key: await fsp.readFile(tls.clientKeyFile) },
  };
}
