// How long a scenario waits for the moment it strikes: the run has to get there on a loaded machine.
import type { WaitOptions } from '../wait.js';

export const faultMarker: WaitOptions = { timeoutMs: 90_000, intervalMs: 20 };
