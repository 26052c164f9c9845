// Property: whatever the model sends in one turn — broken JSON, wrong types, huge strings, unknown or empty names,
// duplicate or missing ids, cut-off streams, a hundred calls — the pure pipeline the workflow runs never throws, and
// answers every call with exactly one valid envelope, in order, under the call's final id. The quick loop's share of
// the property; hostile-turns.long.test.ts checks a thousand from another seed in the long project.
import { describe, it } from 'vitest';
import { checkHostileTurns } from '../../support/hostile-turn-property.js';

const TURNS = 25;

describe('hostile model output through the pure turn pipeline', () => {
  it(`answers every call of ${TURNS} generated turns with one valid envelope, in order, never throwing`, () => {
    checkHostileTurns(TURNS, 20_261_202);
  }, 120_000);
});
