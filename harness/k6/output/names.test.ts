import { describe, expect, it } from 'vitest';
import { MAX_NAMES } from '../../scenario/names.ts';
import { FOLDED_NAME, NameCatalog, foldedNameOf, importedNameProblem } from './names.ts';
import { cutTo } from './second.ts';

describe('which k6 names become rows', () => {
  it.each([
    ['create_agenda', null],
    ['read order', null],
    // k6's name for a request it was not given one for: the URL; its host and port are not data
    ['http://localhost:8080/api/agendas', null],
    ['https://shop.example:8443/orders?page=2', null],
    ['http://127.0.0.1:9101/work', null],
    ['http://localhost:8080/api/agendas/12345', 'URL "http://localhost:8080/api/agendas/12345" has a number'],
    [
      'https://x.example/o/3f2b8c1e-1d2a-4b7c-9e0f-1a2b3c4d5e6f',
      'URL "https://x.example/o/3f2b8c1e-1d2a-4b7c-9e0f-1a2b3c4d5e6f" has a UUID',
    ],
    ['GET /orders/123', 'name "GET /orders/123" has a number'],
  ])('%s', (name, problem) => {
    const p = importedNameProblem(name);
    if (problem === null) expect(p).toBeNull();
    else expect(p).toContain(problem);
  });

  it('folds names built from data into one key, counts them, and keeps the fixed ones in order', () => {
    const c = new NameCatalog();
    const keys = [
      'list',
      ...Array.from({ length: 50 }, (_, i) => `http://h:8080/orders/${1000 + i}`),
      'list',
      'pay',
    ].map((n) => c.keyOf(n));
    expect(keys.filter((k) => k === FOLDED_NAME)).toHaveLength(50);
    expect(c.keyOf('http://h:8080/orders/1000')).toBe(FOLDED_NAME);
    const s = c.summary();
    expect([s.kept, s.folded, s.foldedMore, s.foldedAllUrls, c.size]).toEqual([['list', 'pay'], 50, false, true, 3]);
    expect(s.examples).toHaveLength(3);
    expect(foldedNameOf(s)).toBe('(unnamed: 50 URLs)');
  });

  it('folds URLs that differ only in their query values once more than 10 came, as it folds numbers', () => {
    const c = new NameCatalog();
    const terms = [
      'alice',
      'bob',
      'carol',
      'dave',
      'erin',
      'frank',
      'grace',
      'heidi',
      'ivan',
      'judy',
      'mallory',
      'oscar',
    ];
    for (const t of terms) c.keyOf(`http://h:8080/search?q=${t}&sort=name`);
    // a path alone is not data, nor a query key, nor a name that is no URL
    for (const n of ['http://h:8080/search', 'http://h:8080/search?page=x', 'search?q=a', 'search?q=b']) c.keyOf(n);
    const s = c.summary();
    expect(s.kept).toEqual(['http://h:8080/search', 'http://h:8080/search?page=x', 'search?q=a', 'search?q=b']);
    expect([s.folded, s.foldedLate.length, foldedNameOf(s)]).toEqual([12, 10, '(unnamed: 12 URLs)']);
    expect(s.examples[0]).toBe(
      '"http://h:8080/search?q=mallory&sort=name" differs only in its numbers or query values from 10 names before it ("http://h:8080/search?q=alice&sort=name", ...)',
    );
  });

  it(`keeps at most ${MAX_NAMES - 1} names of their own, so that with the folded row a run has at most ${MAX_NAMES}`, () => {
    const c = new NameCatalog();
    for (let i = 0; i < MAX_NAMES + 20; i++) c.keyOf(`step ${String.fromCharCode(65 + (i % 26))}${Math.floor(i / 26)}`);
    const s = c.summary();
    expect([s.kept.length, s.folded, c.size, s.foldedAllUrls]).toEqual([MAX_NAMES - 1, 21, MAX_NAMES, false]);
    expect(s.examples[0]).toContain(`came after ${MAX_NAMES - 1} other names`);
    expect(foldedNameOf(s)).toBe('(unnamed: 21 names)');
  });
});

describe('errors of failed arrivals (iterations)', () => {
  it.each([
    [{ http_5xx: 3, timeout: 1 }, 9, { http_5xx: 3, timeout: 1 }],
    [{ http_5xx: 3, timeout: 1 }, 4, { http_5xx: 3, timeout: 1 }],
    [{ http_5xx: 3, timeout: 2 }, 4, { http_5xx: 3, timeout: 1 }],
    [{ http_5xx: 1, timeout: 5 }, 2, { timeout: 2 }],
    [{ http_4xx: 2 }, 0, {}],
  ] as const)('%o cut to %d', (counts, total, want) => {
    expect(cutTo({ ...counts }, total)).toEqual(want);
  });
});
