import { describe, expect, it, vi } from 'vitest';
import { guardExit } from './exit-guard.ts';
import { catchUnhandled } from '../engine/unhandled.ts';
import type { PlateauError } from '../errors.ts';

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

  it('turns process.exit() into a fault of the listening engine instance, which stops the run with its report, and throws to unwind the caller', () => {
    const exit = process.exit;
    const original = vi.fn();
    process.exit = original as unknown as typeof process.exit;
    const counted: string[] = [];
    const faults: unknown[] = [];
    const vitests = process.listeners('uncaughtException');
    const listening = catchUnhandled(
      (m) => counted.push(m),
      (err) => faults.push(err),
    );
    const release = guardExit('runs/x', () => {});
    try {
      expect(() => process.exit(3)).toThrow(
        /^process\.exit\(3\) was called during the run: plateau stops the run here/,
      );
      expect(original).not.toHaveBeenCalled();
      expect(faults).toHaveLength(1);
      const err = faults[0] as PlateauError;
      expect([err.code, err.exitCode, err.message]).toEqual([
        'process-exit',
        4,
        "the scenario's code (or a package it uses) called process.exit(3) during the run: the run stopped there",
      ]);
      expect(err.hint).toMatch(/^remove the process\.exit\(\) call from the scenario/);
      // the throw, left uncaught by a timer, is not counted as the scenario's error as well
      let thrown: unknown;
      try {
        process.exit(0);
      } catch (e) {
        thrown = e;
      }
      const onException = process.listeners('uncaughtException').find((l) => !vitests.includes(l))!;
      onException(thrown as Error, 'uncaughtException');
      expect([counted, faults.length]).toEqual([[], 2]);
    } finally {
      listening();
      release();
    }
    // nobody listening: the call goes through; released: process.exit is what it was
    const again = guardExit('runs/x', () => {});
    try {
      process.exit(5);
      expect(original).toHaveBeenCalledWith(5);
    } finally {
      again();
      expect(process.exit).toBe(original);
      process.exit = exit;
    }
  });
});
