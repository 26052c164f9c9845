// test/support/history-size.ts (history bytes per step, shared with the long-run tests), loaded so that it also works
// outside vitest. It imports a named export of @temporalio/proto, a CommonJS package whose exports Node's ESM loader
// cannot detect; loaded through require, tsx compiles it as CommonJS, where that import resolves.
import { createRequire } from 'node:module';
import type * as HistorySize from '../test/support/history-size.js';

const require = createRequire(import.meta.url);

export const { bytesPerStep, eventBytes, meanBytes } = require('../test/support/history-size.ts') as typeof HistorySize;
