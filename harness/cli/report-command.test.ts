import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { stillRunningNote } from './report-command.ts';

describe('plateau report on a run whose run.json still says running', () => {
  it('notes that the run may be going on (a review read a live run as a cut one); nothing for an ended run or none', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-running-'));
    try {
      fs.writeFileSync(path.join(dir, 'run.json'), JSON.stringify({ status: 'running' }));
      expect(stillRunningNote(dir)).toMatch(
        /^note: run\.json still says running, .* if the run is still going, it rewrites these outputs when it ends\n$/,
      );
      fs.writeFileSync(path.join(dir, 'run.json'), JSON.stringify({ status: 'interrupted' }));
      expect(stillRunningNote(dir)).toBe('');
      fs.rmSync(path.join(dir, 'run.json'));
      expect(stillRunningNote(dir)).toBe('');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
