import { describe, expect, it } from 'vitest';
import { Interrupt, REPEAT_WINDOW_MS, repeatWindowMs, signalHandler, type SignalControl } from './interrupt.ts';

/** The handler of a first signal, with what it said and whether it gave the signals back. */
function firstSignal(loadEnded: boolean, runDir: string | null = '/data/plateau-runs/r1') {
  const interrupt = new Interrupt();
  interrupt.loadEnded = loadEnded;
  interrupt.runDir = runDir;
  const said: string[] = [];
  const c = control();
  signalHandler(interrupt, (s) => said.push(s), c)('SIGTERM');
  c.passMs(REPEAT_WINDOW_MS);
  return { interrupt, said: said.join(''), given: c.given() };
}

/** A SignalControl on a clock the test moves: what it gave back and how it exited. */
function control(): SignalControl & { passMs(ms: number): void; given(): boolean; exited: NodeJS.Signals[] } {
  let now = 0;
  let given = false;
  const timers: Array<{ atMs: number; fn: () => void }> = [];
  const exited: NodeJS.Signals[] = [];
  return {
    uninstall: () => void (given = true),
    exitBy: (sig) => void exited.push(sig),
    later: (fn, ms) => void timers.push({ atMs: now + ms, fn }),
    nowMs: () => now,
    passMs(ms) {
      now += ms;
      for (const t of timers.splice(0))
        if (t.atMs <= now) t.fn();
        else timers.push(t);
    },
    given: () => given,
    exited,
  };
}

describe('a repeated signal', () => {
  const start = () => {
    const interrupt = new Interrupt();
    const c = control();
    const said: string[] = [];
    return { interrupt, c, said, handle: signalHandler(interrupt, (s) => said.push(s), c) };
  };

  it("within REPEAT_WINDOW_MS of the first (GNU timeout's child and group, npx's relay) is the same request: ignored, the report still written", () => {
    const r = start();
    r.handle('SIGTERM');
    r.c.passMs(2);
    r.handle('SIGTERM');
    r.c.passMs(REPEAT_WINDOW_MS - 10);
    r.handle('SIGINT');
    expect([r.c.given(), r.c.exited, r.interrupt.interrupted, r.said.length]).toEqual([false, [], true, 1]);
    // the window over: the signals are the OS's again, so a deliberate second exits at once
    r.c.passMs(10);
    expect(r.c.given()).toBe(true);
  });

  it('past the window, when the main thread was too busy to give the signals back: exits as the OS would', () => {
    const r = start();
    r.handle('SIGINT');
    // the clock moves, the timer has not run (the thread was busy)
    r.c.nowMs = () => REPEAT_WINDOW_MS + 1500;
    r.handle('SIGINT');
    expect([r.c.given(), r.c.exited]).toEqual([true, ['SIGINT']]);
  });
});

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

describe('the window a repeat is the same request in', () => {
  it('is 500 ms, or PLATEAU_SIGNAL_REPEAT_MS; a value that is no number of milliseconds is refused with the fix', () => {
    expect(repeatWindowMs({})).toBe(REPEAT_WINDOW_MS);
    expect(repeatWindowMs({ PLATEAU_SIGNAL_REPEAT_MS: ' ' })).toBe(REPEAT_WINDOW_MS);
    expect(repeatWindowMs({ PLATEAU_SIGNAL_REPEAT_MS: '0' })).toBe(0);
    expect(repeatWindowMs({ PLATEAU_SIGNAL_REPEAT_MS: '2000' })).toBe(2000);
    for (const bad of ['-1', 'soon', 'Infinity'])
      expect(() => repeatWindowMs({ PLATEAU_SIGNAL_REPEAT_MS: bad })).toThrow(
        /^PLATEAU_SIGNAL_REPEAT_MS=".*" is not a number of milliseconds$/,
      );
  });

  it('of 0: the signals are given back at once, and a repeat is a second request, which exits', () => {
    const c = control();
    const handle = signalHandler(new Interrupt(), () => undefined, c, 0);
    handle('SIGINT');
    // no timer to wait for: a thread busy stopping the load would hold a timer back (1.9 s in a CI)
    expect(c.given()).toBe(true);
    handle('SIGINT');
    expect(c.exited).toEqual(['SIGINT']);
  });
});
