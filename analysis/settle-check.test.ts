import { describe, expect, it } from 'vitest';
import { settleTooShort } from './settle-check.ts';

describe('a settle shorter than a transaction lasts (a review: 6 s sessions failed the first step at 28% of capacity)', () => {
  it('refuses with the settle and hold to set, the judged window kept', () => {
    const p = settleTooShort(
      new Map([
        ['checkout', 700],
        ['session', 6100],
      ]),
      { holdS: 6, settleS: 3 },
    );
    expect(p?.problem).toBe(
      'transaction "session" took 6.1 s in its sample arrival (think time included), longer than the 3 s each step settles before it is judged: an arrival counts in the second it ends, so a step\'s window would count "session" arrivals made before it, at the rate below, and read short of its own rate whatever the target carries',
    );
    expect(p?.fix).toBe(
      "let each step settle longer than a transaction lasts under load: set steps.settleS (or --settle) to at least 10 and steps.holdS (or --hold) to at least 13, keeping the judged 3 s of each hold; or shorten the transaction's think time",
    );
  });
  it('never says a sample just past the settle took as long as the settle', () => {
    const p = settleTooShort(new Map([['session', 3040]]), { holdS: 6, settleS: 3 });
    expect(p?.problem).toMatch(
      /^transaction "session" took 3\.04 s in its sample arrival \(think time included\), longer than the 3 s /,
    );
    expect(p?.fix).toMatch(/ to at least 5 and steps\.holdS \(or --hold\) to at least 8, keeping the judged 3 s /);
  });
  it('passes transactions within the settle, and a mix with none', () => {
    expect(settleTooShort(new Map([['session', 2900]]), { holdS: 6, settleS: 3 })).toBeNull();
    expect(settleTooShort(new Map(), { holdS: 6, settleS: 0 })).toBeNull();
  });
});
