// The one error type of the embedded server's processes, carrying the log that explains it.

/** A failure of the embedded server or worker; `logFile` is where the process wrote its output. */
export class DevServerError extends Error {
  override readonly name = 'DevServerError';

  /** The log that explains the failure, when there is one. */
  readonly logFile: string | undefined;

  constructor(message: string, logFile?: string) {
    super(message);
    this.logFile = logFile;
  }
}
