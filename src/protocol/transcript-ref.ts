// Workflow-safe: the transcript as keys. Every message is stored once under its content key; the transcript is a chain
// of small nodes (one per step) from the newest back to the first, so workflow state, activity inputs and
// continue-as-new input carry one head key and a few counters however long the run grows.
import type { ContentKey } from './content-key.js';
import { contentKey } from './content-key.js';
import type { ChatMessage } from './chat-message.js';

/** A stored message: its key and the estimated tokens of its serialised form. */
export interface MessageRef {
  key: ContentKey;
  tokens: number;
}

/** A stored node of the chain: the messages one step added, after those of `prev`. */
export interface TranscriptNode {
  prev: ContentKey | null;
  messages: ContentKey[];
}

/** What the workflow keeps of its transcript. */
export interface TranscriptRef {
  /** The newest node; null before anything was added. */
  head: ContentKey | null;
  /** Messages in the whole chain. */
  messages: number;
  /** Estimated tokens of the whole transcript (characters / 4 of each serialised message). */
  tokens: number;
  /** Estimated tokens of the messages after the last assistant message: the next call's growth. */
  tailTokens: number;
}

/** Content the workflow made and nobody has stored yet, by key; the next activity that reads the transcript writes it. */
export type PendingWrites = Record<string, string>;

export const EMPTY_TRANSCRIPT: TranscriptRef = { head: null, messages: 0, tokens: 0, tailTokens: 0 };

/** The serialised form of a message, as stored and as hashed: one canonical text for every writer. */
export function serializeMessage(message: ChatMessage): string {
  return JSON.stringify(message);
}

/** Estimated tokens of stored content (characters / 4, the budget estimate's rule). */
export function tokensOf(serialized: string): number {
  return Math.ceil(serialized.length / 4);
}

/** A message the workflow made itself: its reference, and the write that must reach the store. */
export function workflowMessage(message: ChatMessage, pending: PendingWrites): MessageRef {
  const serialized = serializeMessage(message);
  const key = contentKey(serialized);
  pending[key] = serialized;
  return { key, tokens: tokensOf(serialized) };
}

/** One node appended to the chain; the node's own content goes to `pending`. */
export function appendMessages(
  transcript: TranscriptRef,
  added: readonly (MessageRef & { role: ChatMessage['role'] })[],
  pending: PendingWrites,
): TranscriptRef {
  if (added.length === 0) return transcript;
  const node: TranscriptNode = { prev: transcript.head, messages: added.map((message) => message.key) };
  const serialized = JSON.stringify(node);
  const head = contentKey(serialized);
  pending[head] = serialized;
  const lastAssistant = added.findLastIndex((message) => message.role === 'assistant');
  const addedTokens = (from: number) => added.slice(from).reduce((sum, message) => sum + message.tokens, 0);
  return {
    head,
    messages: transcript.messages + added.length,
    tokens: transcript.tokens + addedTokens(0),
    tailTokens: lastAssistant === -1 ? transcript.tailTokens + addedTokens(0) : addedTokens(lastAssistant + 1),
  };
}

/** A chain of one node holding the given messages in order (a compacted transcript). */
export function transcriptOf(
  messages: readonly (MessageRef & { role: ChatMessage['role'] })[],
  pending: PendingWrites,
): TranscriptRef {
  return appendMessages(EMPTY_TRANSCRIPT, messages, pending);
}

/** Parses a stored node, failing loudly on anything else (a wrong key must never read as an empty transcript). */
export function parseNode(key: string, text: string): TranscriptNode {
  const node = JSON.parse(text) as Partial<TranscriptNode>;
  if (!node || !Array.isArray(node.messages) || (node.prev !== null && typeof node.prev !== 'string')) {
    throw new Error(`Stored content ${key} is not a transcript node.`);
  }
  return node as TranscriptNode;
}

/**
 * The pending writes to hand to the next activity that reads the transcript; `stored()` forgets them once that
 * activity has completed (a failed attempt leaves them pending for the next one).
 */
export function takeWrites(state: { pendingWrites: PendingWrites }): { content: PendingWrites; stored(): void } {
  const content = { ...state.pendingWrites };
  return {
    content,
    stored: () => {
      for (const key of Object.keys(content)) delete state.pendingWrites[key];
    },
  };
}
