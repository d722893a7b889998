import { describe, expect, it } from 'vitest';
import { sparseScrapeNote } from './scrape-check.ts';

describe('the note on a scrape interval too long for the steady window', () => {
  it('is said where fewer than two scrapes fit a steady window, with the interval that would', () => {
    expect(sparseScrapeNote('x_count', 15_000, 5)).toBe(
      "note: Prometheus scrapes x_count every 15.0 s, and a steady window is 5 s: fewer than two scrapes fall in it, so the server's figures will come from the direct readings (metrics.url) or be missing; scrape the target at least every 2.5 s, or lengthen the hold",
    );
    expect(sparseScrapeNote('x_count', 2_500, 5)).toBeNull();
    expect(sparseScrapeNote('x_count', 1_000, 5)).toBeNull();
    // no interval to tell (a series with one sample, or none)
    expect(sparseScrapeNote('x_count', null, 5)).toBeNull();
  });
});
