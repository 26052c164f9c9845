// A real S3-compatible server for tests: s3proxy (Apache-2.0, from Maven Central) on its filesystem backend, on a free
// port with a temp data dir and one bucket. Chosen over the alternatives reachable from the package registries:
// - it checks SigV4 signatures and access keys like S3 (moto accepts any credentials unless IAM emulation is set up);
// - a CopyObject onto itself with MetadataDirective REPLACE moves LastModified, as on AWS, which the store's refresh
//   relies on (versitygw's posix backend keeps the old time; MinIO, which does move it, is AGPL-3.0);
// - it is one 55 MB jar fetched in under a minute, and starts in 1-2 s on the JDK 17 this machine kind ships.
// `npm run s3:provision` caches the jar under <cacheDir>/bin; tests only look it up, they never download.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { constants as fsConstants } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { execa } from 'execa';
import { cacheDir } from '../../src/host/state-dir.js';
import { watchChild } from './child-process.js';
import type { WatchedChild } from './child-process.js';
import { findFreePorts } from './ports.js';

/** The s3proxy release provisioned (its jar-with-dependencies needs Java 17). */
export const S3PROXY_VERSION = '4.1.0';
const MAVEN_ARTIFACT = `org.gaul:s3proxy:${S3PROXY_VERSION}:jar:jar-with-dependencies`;
const MINIMUM_JAVA = 17;

/** A running server with one empty bucket. */
export interface TestS3Server {
  /** `http://127.0.0.1:<port>`; path-style addressing. */
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** The filesystem backend's root: `<dataDir>/<bucket>/<key>` is an object's file (its mtime is its LastModified). */
  dataDir: string;
  /** The variables that point `storeFromEnv` (the worker, the CLI) at this bucket under `prefix`. */
  storeEnv(prefix?: string): Record<string, string>;
  /** Stops the server and removes its data. */
  stop(): Promise<void>;
  /** SIGKILLs the server and waits until it is gone; its data stays, and `restart` serves it again on the same port. */
  kill(): Promise<void>;
  /** Starts the server again on the same port and data, and waits until it answers. */
  restart(): Promise<void>;
}

/** Why no server can start here, with what to do about it. */
export class S3ServerUnavailableError extends Error {
  override name = 'S3ServerUnavailableError';
}

/** Where `s3:provision` keeps the jar. */
export function s3proxyJarPath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(cacheDir(env), 'bin', `s3proxy-${S3PROXY_VERSION}.jar`);
}

/** The java binary and the provisioned jar, or the reason the server cannot run. */
export async function locateS3Server(env: NodeJS.ProcessEnv = process.env): Promise<{ java: string; jar: string }> {
  const java = await findJava(env);
  const jar = s3proxyJarPath(env);
  if (!(await exists(jar)))
    throw new S3ServerUnavailableError(
      `s3proxy ${S3PROXY_VERSION} is not provisioned (no ${jar}); run \`npm run s3:provision\`.`,
    );
  return { java, jar };
}

/** Downloads the jar from Maven Central into the cache (no-op when present); returns where it is. */
export async function provisionS3Server(
  log: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  await findJava(env);
  const target = s3proxyJarPath(env);
  if (await exists(target)) return target;
  await fs.mkdir(path.dirname(target), { recursive: true });
  // Private staging dir renamed into place: an interrupted download never leaves a half jar where lookups find it.
  const staging = await fs.mkdtemp(path.join(path.dirname(target), '.s3proxy-'));
  try {
    log(`Fetching ${MAVEN_ARTIFACT} with Maven…`);
    const fetched = await execa(
      'mvn',
      [
        '-B',
        '-q',
        '--strict-checksums',
        'dependency:copy',
        `-Dartifact=${MAVEN_ARTIFACT}`,
        `-DoutputDirectory=${staging}`,
      ],
      {
        env,
        reject: false,
        stdin: 'ignore',
        all: true,
        timeout: 10 * 60_000,
      },
    );
    if (fetched.failed)
      throw new S3ServerUnavailableError(
        `\`mvn dependency:copy -Dartifact=${MAVEN_ARTIFACT}\` failed (${fetched.exitCode === undefined ? fetched.shortMessage : `exit ${fetched.exitCode}`}); ` +
          `it needs Maven (apt-get install maven) and access to Maven Central.\n${(fetched.all ?? '').split('\n').slice(-15).join('\n')}`,
      );
    await fs.rename(path.join(staging, `s3proxy-${S3PROXY_VERSION}-jar-with-dependencies.jar`), target);
    return target;
  } finally {
    await fs.rm(staging, { recursive: true, force: true });
  }
}

/** Starts s3proxy with a fresh bucket; throws S3ServerUnavailableError when it is not provisioned. */
export async function startS3Server(options: { bucket?: string } = {}): Promise<TestS3Server> {
  const { java, jar } = await locateS3Server();
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'durable-agent-s3-'));
  const dataDir = path.join(directory, 'data');
  await fs.mkdir(dataDir);
  const [port] = (await findFreePorts(1)) as [number];
  const endpoint = `http://127.0.0.1:${port}`;
  const accessKeyId = 'durable-agent-test';
  const secretAccessKey = 'durable-agent-test-secret';
  const bucket = options.bucket ?? 'durable-agent-test';
  const region = 'us-east-1';
  const properties = path.join(directory, 's3proxy.conf');
  await fs.writeFile(
    properties,
    [
      `s3proxy.endpoint=${endpoint}`,
      's3proxy.authorization=aws-v2-or-v4',
      `s3proxy.identity=${accessKeyId}`,
      `s3proxy.credential=${secretAccessKey}`,
      'jclouds.provider=filesystem',
      `jclouds.filesystem.basedir=${dataDir}`,
      '',
    ].join('\n'),
  );
  const logFile = path.join(directory, 's3proxy.log');
  const launch = async (): Promise<{ child: ChildProcess; watched: WatchedChild }> => {
    const logHandle = await fs.open(logFile, 'a');
    // C1 only and the serial collector: half the start time, and tests move a few megabytes at most.
    const child = spawn(
      java,
      ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', '-Xmx512m', '-jar', jar, '--properties', properties],
      {
        cwd: directory,
        stdio: ['ignore', logHandle.fd, logHandle.fd],
      },
    );
    await logHandle.close();
    const watched = watchChild(child, directory);
    try {
      await waitUntilListening(endpoint, watched.exit, logFile);
    } catch (error) {
      await watched.stop();
      throw error;
    }
    return { child, watched };
  };
  let current = await launch();

  try {
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true'; // as in the store: the pin supports Node 20
    const client = new S3Client({
      endpoint,
      region,
      forcePathStyle: true,
      credentials: { accessKeyId, secretAccessKey },
    });
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
    client.destroy();
  } catch (error) {
    await current.watched.stop();
    throw error;
  }
  return {
    endpoint,
    bucket,
    region,
    accessKeyId,
    secretAccessKey,
    dataDir,
    storeEnv: (prefix = '') => ({
      DURABLE_AGENT_STORE: `s3://${bucket}/${prefix}`,
      DURABLE_AGENT_S3_ENDPOINT: endpoint,
      AWS_REGION: region,
      AWS_ACCESS_KEY_ID: accessKeyId,
      AWS_SECRET_ACCESS_KEY: secretAccessKey,
    }),
    stop: () => current.watched.stop(),
    kill: async () => {
      if (current.watched.exit() !== undefined) return;
      const gone = new Promise((resolve) => current.child.once('exit', resolve));
      current.child.kill('SIGKILL');
      await gone;
    },
    restart: async () => {
      current = await launch();
    },
  };
}

async function waitUntilListening(endpoint: string, exit: () => string | undefined, logFile: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const exited = exit();
    if (exited) throw new Error(`s3proxy ${exited}:\n${await tail(logFile)}`);
    try {
      // Any HTTP answer (an unsigned request is refused) means Jetty is serving.
      await fetch(endpoint, { signal: AbortSignal.timeout(1000) });
      return;
    } catch {
      if (Date.now() > deadline)
        throw new Error(`s3proxy did not answer on ${endpoint} within 60 s:\n${await tail(logFile)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

async function tail(file: string): Promise<string> {
  const text = await fs.readFile(file, 'utf8').catch(() => '');
  return text.split('\n').slice(-20).join('\n');
}

/** `java` from JAVA_HOME or PATH, if it is at least Java 17. */
async function findJava(env: NodeJS.ProcessEnv): Promise<string> {
  const java = env.JAVA_HOME ? path.join(env.JAVA_HOME, 'bin', 'java') : 'java';
  const result = await execa(java, ['-version'], { env, reject: false, stdin: 'ignore', timeout: 30_000 });
  const match = /version "(\d+)(?:\.(\d+))?/.exec(result.stderr);
  if (result.failed || !match)
    throw new S3ServerUnavailableError(
      `no Java runtime (${java} -version failed); s3proxy needs Java ${MINIMUM_JAVA}+ (apt-get install default-jre-headless).`,
    );
  // Java 8 and older report "1.8"; from 9 on the first number is the major version.
  const major = match[1] === '1' ? Number(match[2]) : Number(match[1]);
  if (major < MINIMUM_JAVA)
    throw new S3ServerUnavailableError(
      `${java} is Java ${major}; s3proxy ${S3PROXY_VERSION} needs Java ${MINIMUM_JAVA}+ (apt-get install openjdk-17-jre-headless).`,
    );
  return java;
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.access(file, fsConstants.R_OK);
    return true;
  } catch {
    return false;
  }
}
