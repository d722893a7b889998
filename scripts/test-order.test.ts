import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { knownSeconds, SECONDS } from './test-order.ts';

describe('the test files started first', () => {
  it('names files that exist, by their path from the root', () => {
    for (const f of Object.keys(SECONDS)) expect(fs.existsSync(f), f).toBe(true);
  });

  it('knows a listed file by its absolute path, and any other as 0 s', () => {
    const root = path.resolve('.');
    expect(knownSeconds(root, path.join(root, 'test/faults.test.ts'))).toBe(SECONDS['test/faults.test.ts']);
    expect(knownSeconds(root, path.join(root, 'test/demo.test.ts'))).toBe(0);
  });
});
