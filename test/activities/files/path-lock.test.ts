import { describe, expect, it } from 'vitest';
import { withPathLock } from '../../../src/activities/files/path-lock.js';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('withPathLock', () => {
  it('runs tasks on one key one at a time, in arrival order, even when one fails', async () => {
    const events: string[] = [];
    const task =
      (name: string, ms: number, fail = false) =>
      async () => {
        events.push(`${name}:start`);
        await pause(ms);
        events.push(`${name}:end`);
        if (fail) throw new Error(name);
        return name;
      };
    const results = await Promise.allSettled([
      withPathLock('/w/a', task('first', 20, true)),
      withPathLock('/w/a', task('second', 1)),
      withPathLock('/w/a', task('third', 1)),
    ]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    expect(events).toEqual(['first:start', 'first:end', 'second:start', 'second:end', 'third:start', 'third:end']);
  });

  it('lets different keys run at the same time', async () => {
    const events: string[] = [];
    await Promise.all([
      withPathLock('/w/a', async () => {
        events.push('a:start');
        await pause(20);
        events.push('a:end');
      }),
      withPathLock('/w/b', async () => {
        events.push('b:start');
        await pause(1);
        events.push('b:end');
      }),
    ]);
    expect(events.indexOf('b:end')).toBeLessThan(events.indexOf('a:end'));
  });
});
