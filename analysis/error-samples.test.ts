import { describe, expect, it } from 'vitest';
import { capSamples, sampleKey } from './error-samples.ts';

const body = (i: number) => `http_5xx: read: HTTP 503; body: {"requestId":"r-${i}"}`;

describe("a window's error samples", () => {
  it('a kind is what precedes the body: messages that differ only in their body are one kind', () => {
    expect(sampleKey(body(1))).toBe('http_5xx: read: HTTP 503');
    expect(sampleKey('timeout: read: deadline')).toBe('timeout: read: deadline');
  });

  it("keeps each kind's first before a second message of any: bodies with ids do not crowd out other kinds", () => {
    const samples = [...[1, 2, 3, 4, 5, 6, 7].map(body), 'timeout: deadline', body(8), 'http_4xx: write: HTTP 409'];
    expect(capSamples(samples, 5)).toEqual([
      body(1),
      body(2),
      body(3),
      'timeout: deadline',
      'http_4xx: write: HTTP 409',
    ]);
    // without a kind to make room for: the first distinct, as before
    expect(capSamples(['a', 'b', 'a', 'c'], 2)).toEqual(['a', 'b']);
  });

  it('capping a capped list with more messages gives what capping the whole list does (windows merge a bucket at a time)', () => {
    const seconds = [
      [1, 2, 3, 4, 5].map(body),
      [6, 7].map(body).concat('other: a'),
      ['other: b', body(9), 'check: c', 'other: a'],
      ['timeout: t', 'check: d'],
    ];
    let acc: string[] = [];
    for (const s of seconds) acc = capSamples([...acc, ...s], 4);
    expect(acc).toEqual(capSamples(seconds.flat(), 4));
    expect(acc).toEqual([body(1), 'other: a', 'other: b', 'check: c']);
  });
});
