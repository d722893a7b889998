import { describe, expect, it } from 'vitest';
import { Interrupt, signalHandler } from './interrupt.ts';

/** The handler of a first signal, with what it said and whether it gave the signals back. */
function firstSignal(loadEnded: boolean) {
  const interrupt = new Interrupt();
  interrupt.loadEnded = loadEnded;
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
});
