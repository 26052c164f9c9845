// Workflow-safe: the read-before-write store of docs/tools.md §8, kept in workflow state.

/** A snapshot of a file as last read or written by this task. */
export interface ReadState {
  rel: string;
  mtime_ms: number;
  size_bytes: number;
  sha256: string;
  read_at: number;
  source: 'read' | 'write' | 'edit';
  partial: boolean;
}

/** Keyed by the file's canonical (symlink-resolved) workspace-relative path. */
export type ReadStateStore = Record<string, ReadState>;

/** A change an activity asks the workflow to make to the store. */
export type ReadStateUpdate = { key: string; entry: ReadState } | { key: string; entry: null };
