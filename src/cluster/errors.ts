// The one error type of the local cluster: its message says what went wrong and what to do.

/** Starting, checking or stopping the local cluster failed. */
export class ClusterError extends Error {
  override readonly name = 'ClusterError';
}
