// Node: where an S3 store keeps its objects and how it names itself, apart from the store so that naming it does not
// load the AWS SDK (a worker on the directory store never does).

/** The key prefix as the store uses it: no leading slash, a trailing one unless empty. */
export function s3KeyPrefix(prefix: string | undefined): string {
  const trimmed = (prefix ?? '').replace(/^\/+/, '');
  return trimmed === '' || trimmed.endsWith('/') ? trimmed : `${trimmed}/`;
}

/** `s3://bucket/prefix/ (endpoint)`: the store as errors and `status` name it. */
export function s3StoreDescription(options: { bucket: string; prefix?: string; endpoint?: string }): string {
  return `s3://${options.bucket}/${s3KeyPrefix(options.prefix)}${options.endpoint ? ` (${options.endpoint})` : ''}`;
}
