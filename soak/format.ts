// Units as the soak report prints them.

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

export function mebibytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(bytes < 10 * 1024 * 1024 ? 2 : 0)} MiB`;
}

/** "median 26.5 s (24.1–28.0 s)" of the finite values, or "–". */
export function spread(values: number[]): string {
  const finite = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (finite.length === 0) return '–';
  const median = finite[Math.floor((finite.length - 1) / 2)]!;
  if (finite.length === 1) return seconds(median);
  return `median ${seconds(median)} (${seconds(finite[0]!)}–${seconds(finite.at(-1)!)})`;
}
