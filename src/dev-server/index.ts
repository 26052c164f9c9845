// The embedded Temporal dev server, its background worker and the Web UI's codec endpoint: started detached so runs
// outlive the CLI, found again through <stateDir>/dev-server.json, and only ever signalled after /proc confirms the pid
// is still ours. One file per concern: server, background processes, status and stop, processes, record, lock, ports,
// search attributes, supervision of the worker.
export { ensureDevCodec, ensureDevWorker } from './background.js';
export type { DevCodecInfo, DevWorkerInfo, EnsureDevCodecOptions, EnsureDevWorkerOptions } from './background.js';
export { devServerStatus, stopDevServer } from './control.js';
export type { DevServerStatus, StopDevServerResult } from './control.js';
export { DevServerError } from './errors.js';
export { DEFAULT_DEV_CODEC_PORT, DEFAULT_DEV_PORT, DEFAULT_DEV_UI_PORT } from './ports.js';
export { ensureSearchAttributes, hasAgentSearchAttributes } from './search-attributes.js';
export { superviseDevWorker } from './supervisor.js';
export type { DevWorkerSupervision, SuperviseDevWorkerOptions } from './supervisor.js';
export { ensureDevServer, openDevServer, temporalServerArgs, waitForTemporalServer } from './server.js';
export type { DevServerInfo, EnsureDevServerOptions, WaitForTemporalServerOptions } from './server.js';
export type { DevServerLocation } from './state-record.js';
