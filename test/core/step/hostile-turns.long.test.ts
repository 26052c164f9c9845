// Property, at full size: the hostile-turn property of hostile-turns.test.ts over a thousand turns (from the seed it has always had).
// It runs in the `long` project (`npm test`), outside the quick unit loop (`npm run test:unit`).
import { describe, it } from 'vitest';
import { checkHostileTurns } from '../../support/hostile-turn-property.js';

const TURNS = 1000;

describe('hostile model output through the pure turn pipeline, at length', () => {
  it(`answers every call of ${TURNS} generated turns with one valid envelope, in order, never throwing`, () => {
    checkHostileTurns(TURNS, 20_260_101);
  }, 600_000);
});
