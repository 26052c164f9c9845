/** Why the compiled CLI in `root`/dist cannot be run as it is (missing, or older than src/), or undefined. */
export function staleBuild(root: string): string | undefined;
