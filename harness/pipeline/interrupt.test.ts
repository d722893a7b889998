import { describe, expect, it } from 'vitest';
import { Interrupt, signalHandler } from './interrupt.ts';

/** The handler of a first signal, with what it said and whether it gave the signals back. */
function firstSignal(loadEnded: boolean, runDir: string | null = '/data/plateau-runs/r1') {
  const interrupt = new Interrupt();
  interrupt.loadEnded = loadEnded;
  interrupt.runDir = runDir;
  const said: string[] = [];
  let given = false;
  signalHandler(
    interrupt,
    (s) => said.push(s),
    () => (given = true),
  )('SIGTERM');
  return { interrupt, said: said.join(''), given };
}

describe('a first signal to a running plateau', () => {
  it('during the load: stops it (the run is interrupted), and gives the signals back for a second', () => {
    const r = firstSignal(false);
    expect(r.interrupt.interrupted).toBe(true);
    expect(r.given).toBe(true);
    expect(r.said).toMatch(/SIGTERM: stopping the load and writing the report/);
  });

  it('once the load has ended (the report being written): interrupts nothing, and says the load had ended', () => {
    const r = firstSignal(true);
    // the run stays complete: its report said complete, and its exit code must not say 130
    expect(r.interrupt.interrupted).toBe(false);
    expect(r.given).toBe(true);
    expect(r.said).toMatch(/SIGTERM: the load has ended; writing the report \(press Ctrl-C again to exit at once/);
  });

  it("names the run's own directory, not runs/, and what an exit at once leaves unwritten", () => {
    const during = firstSignal(false).said;
    expect(during).not.toContain('runs/ keeps');
    expect(during).toContain('/data/plateau-runs/r1 keeps every second recorded so far');
    // the report's files come in order (harness/report.ts): an exit at once may leave the last out
    expect(during).toMatch(
      /report\.html and the charts come last.*`plateau report \/data\/plateau-runs\/r1` writes them/,
    );
    const ended = firstSignal(true).said;
    expect(ended).toContain('/data/plateau-runs/r1 keeps every second');
    expect(ended).toContain('`plateau report /data/plateau-runs/r1`');
  });

  it('before the run has a directory: says nothing is recorded yet', () => {
    expect(firstSignal(false, null).said).toMatch(/nothing is recorded yet/);
  });
});
