import v8 from 'node:v8';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SERVING_V8_FLAGS, tuneGcForServing } from '../../../src/platform/process.js';

describe('tuneGcForServing', () => {
  afterEach(() => vi.restoreAllMocks());

  it('turns allocation-site pretenuring off through V8 at run time (no command-line flag needed)', () => {
    const set = vi.spyOn(v8, 'setFlagsFromString');
    tuneGcForServing();
    expect(SERVING_V8_FLAGS).toContain('--no-allocation-site-pretenuring');
    expect(set.mock.calls.map((c) => c[0])).toEqual([...SERVING_V8_FLAGS]);
  });

  it('every flag it sets is one this Node accepts', async () => {
    const { execFileSync } = await import('node:child_process');
    // V8 rejects an unknown flag on the command line; setFlagsFromString would ignore it silently.
    for (const flag of SERVING_V8_FLAGS) execFileSync(process.execPath, [flag, '-e', '0']);
  });
});
