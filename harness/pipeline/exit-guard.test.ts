import { describe, expect, it } from 'vitest';
import { guardExit } from './exit-guard.ts';

describe('guardExit', () => {
  it('says what ended the run, that its data is kept and how to write its report, exits 4, and lets go when released', () => {
    const before = process.listeners('exit');
    const said: string[] = [];
    const release = guardExit('runs/x', (s) => said.push(s));
    const ours = process.listeners('exit').filter((l) => !before.includes(l));
    expect(ours).toHaveLength(1);
    const kept = process.exitCode;
    try {
      (ours[0] as (code: number) => void)(3);
      expect(process.exitCode).toBe(4);
    } finally {
      process.exitCode = kept;
    }
    expect(said.join('')).toMatch(
      /^\nplateau: the run's process was ended by process\.exit\(3\) while the run ran, .*\n {2}fix: remove the process\.exit\(\) call from the scenario .* write its report with `plateau report runs\/x`\n$/,
    );
    release();
    expect(process.listeners('exit')).toEqual(before);
  });
});
