// What the operator key signs: a run's input (whatever the order of its keys, never its own proof) for one workflow id,
// a decision for one call's identity; and the window in which a proof may start a chain.
import { describe, expect, it } from 'vitest';
import { mac, macMatches, signDecision, signRun } from '../../src/authorization/signing.js';
import {
  RUN_PROOF_WINDOW_MS,
  decisionMessage,
  inputDigest,
  runProofMessage,
  runProofWindowRefusal,
} from '../../src/protocol/run-authorization.js';

const key = Buffer.alloc(32, 7);

describe('run proofs', () => {
  it('sign the input without the proof, in any key order, for one workflow id', () => {
    const input = { task: 't', workspace: '/w', maxSteps: 3, nested: { b: 1, a: [1, { y: 2, x: 1 }] } };
    const reordered = { nested: { a: [1, { x: 1, y: 2 }], b: 1 }, maxSteps: 3, workspace: '/w', task: 't' };
    const proof = signRun(key, 'wf-1', input, 1000);
    expect(inputDigest({ ...reordered, authorization: proof })).toBe(inputDigest(input));
    expect(macMatches(key, runProofMessage('wf-1', 1000, inputDigest(reordered)), proof.mac)).toBe(true);
    expect(macMatches(key, runProofMessage('wf-2', 1000, inputDigest(input)), proof.mac)).toBe(false);
    expect(macMatches(key, runProofMessage('wf-1', 1000, inputDigest({ ...input, task: 'u' })), proof.mac)).toBe(false);
    expect(macMatches(Buffer.alloc(32, 8), runProofMessage('wf-1', 1000, inputDigest(input)), proof.mac)).toBe(false);
  });

  it('start a chain only soon after they were signed', () => {
    expect(runProofWindowRefusal(10_000_000, 10_000_500)).toBeUndefined();
    expect(runProofWindowRefusal(10_000_000, 10_000_000 + RUN_PROOF_WINDOW_MS + 1)).toMatch(/good for 300 s/);
    expect(runProofWindowRefusal(10_000_000, 9_000_000)).toMatch(/before its proof was signed/);
  });
});

describe('signed decisions', () => {
  const subject = { workflowId: 'wf-1', callId: 'call_x', identity: '3/0/Bash/abcd' };
  const decision = { tool_call_id: 'call_x', decision: 'approve' as const, decided_by: 'op@host' };

  it('verify for the call they were signed for, and for nothing else', () => {
    const signed = signDecision(key, subject, decision, 5000);
    const verifies = (over: typeof subject, what = signed) =>
      macMatches(key, decisionMessage(over, what, what.signature!.issuedAt), what.signature!.mac);
    expect(verifies(subject)).toBe(true);
    expect(verifies({ ...subject, identity: '4/0/Bash/ef01' })).toBe(false);
    expect(verifies({ ...subject, workflowId: 'wf-2' })).toBe(false);
    expect(verifies(subject, { ...signed, decision: 'reject' })).toBe(false);
    expect(verifies(subject, { ...signed, remember: true })).toBe(false);
    expect(verifies(subject, { ...signed, decided_by: 'someone@else' })).toBe(false);
  });

  it('refuse a MAC that is not 64 hex digits', () => {
    expect(macMatches(key, 'm', mac(key, 'm'))).toBe(true);
    expect(macMatches(key, 'm', mac(key, 'm').slice(2))).toBe(false);
    expect(macMatches(key, 'm', 42)).toBe(false);
  });
});
