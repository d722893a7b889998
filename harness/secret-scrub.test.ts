import { describe, expect, it } from 'vitest';
import { mdCell } from '../reports/escape.ts';
import { CUT_MARK, cutMessage } from './cut-message.ts';
import { PLACEHOLDER_USERINFO, secretScrubber } from './secret-scrub.ts';

/** The review's three keys (finding 2): a \ and a ", Go's escapes of & < >, a base64 key. */
const BACKSLASH_QUOTE = 'Ab\\Cd"Ef/Gh+Ij=Kl';
const GO_ESCAPED = 'Qx7&mP2<vR9>tZ4';
const BASE64 = 'Zm9v+YmFy/c2VjcmV0LWtleQ==';

const scrubOf = (value: string) => secretScrubber(['REV_API_KEY'], { REV_API_KEY: value });
const json = (s: string) => JSON.stringify(s).slice(1, -1);
/** Go's encoding/json: < > & and U+2028, U+2029 as \u escapes. */
const goJson = (s: string) =>
  json(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
/** Python's json.dumps (ensure_ascii): every non-ASCII character as \u escapes, a surrogate pair outside the BMP. */
const asciiJson = (s: string) =>
  json(s).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
const html = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
const formEncoded = (s: string) => new URLSearchParams({ v: s }).toString().slice(2);
const lowerHex = (s: string) => s.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase());

describe('the scrubber, the forms of the review (finding 2) as they reached its files', () => {
  it.each<[string, string, string]>([
    // report.md: the body's JSON form, JSON-escaped again in buckets.ndjson, read back, then Markdown-escaped
    ['a \\ and a ", report.md', BACKSLASH_QUOTE, 'denied: {"error":"denied","key":"Ab\\\\\\\\Cd\\\\"Ef/Gh+Ij=Kl"} |'],
    [
      'a \\ and a ", report.html',
      BACKSLASH_QUOTE,
      'denied: {&quot;key&quot;:&quot;Ab\\\\Cd\\&quot;Ef/Gh+Ij=Kl&quot;}</td>',
    ],
    [
      'a \\ and a ", buckets.ndjson',
      BACKSLASH_QUOTE,
      '{"samples":["denied: {\\"key\\":\\"Ab\\\\\\\\Cd\\\\\\"Ef/Gh+Ij=Kl\\"}"]}',
    ],
    ["Go's escapes, report.md", GO_ESCAPED, 'denied: {"key":"Qx7\\\\u0026mP2\\\\u003cvR9\\\\u003etZ4"}'],
    [
      "Go's escapes, report.html",
      GO_ESCAPED,
      'denied: {&quot;key&quot;:&quot;Qx7\\u0026mP2\\u003cvR9\\u003etZ4&quot;}',
    ],
    ['percent-encoded, its parameter named "for"', BASE64, '"url":"/echo?ok=1&for=Zm9v%2BYmFy%2Fc2VjcmV0LWtleQ%3D%3D"'],
    ['percent-encoded, report.html', BASE64, '/echo?ok=1&amp;for=Zm9v%2BYmFy%2Fc2VjcmV0LWtleQ%3D%3D&quot;'],
  ])('%s', (_name, value, text) => {
    const out = scrubOf(value)(text);
    expect(out).toContain('[redacted]');
    for (const piece of ['Ab', 'Gh+Ij', 'mP2', 'vR9', 'YmFy', 'c2VjcmV0'])
      if (value.includes(piece)) expect(out).not.toContain(piece);
  });

  it('a parameter with a secret-looking name after a \\u0026 or &amp; separator', () => {
    const scrub = secretScrubber([], {});
    expect(scrub('"url":"/echo?ok=1\\\\u0026apikey=Qx7%26mP2%3CvR9%3EtZ4"')).toBe(
      '"url":"/echo?ok=1\\\\u0026apikey=[redacted]"',
    );
    expect(scrub('/echo?ok=1\\u0026apikey=abc&amp;access_token=def&amp;amp;page=2')).toBe(
      '/echo?ok=1\\u0026apikey=[redacted]&amp;access_token=[redacted]&amp;amp;page=2',
    );
  });
});

describe('the scrubber, every form of a value', () => {
  const values = [
    BACKSLASH_QUOTE,
    GO_ESCAPED,
    BASE64,
    'it\'s <a> "b" & c/d\\e',
    'pä$$wörd 🔑 x\u2028y',
    'line\none\ttab',
    'DOM%5Cuser:pw', // a %5C of its own (the review's finding 1)
    'pa\\%5Css"%255Cwd',
  ];
  const forms: Array<[string, (s: string) => string]> = [
    ['raw', (s) => s],
    ['JSON once', json],
    ['JSON twice', (s) => json(json(s))],
    ['JSON three times', (s) => json(json(json(s)))],
    ["Go's JSON", goJson],
    ["Go's JSON, JSON-escaped again", (s) => json(goJson(s))],
    ['ASCII-only JSON (\\u of every non-ASCII character)', asciiJson],
    ['ASCII-only JSON, then JSON again', (s) => json(asciiJson(s))],
    [
      'ASCII-only JSON with upper-case hex',
      (s) => asciiJson(s).replace(/\\u([0-9a-f]{4})/g, (_, h: string) => `\\u${h.toUpperCase()}`),
    ],
    ['encodeURIComponent', encodeURIComponent],
    ['encodeURIComponent, lower-case hex', (s) => lowerHex(encodeURIComponent(s))],
    ['form encoding (+ for a space)', formEncoded],
    ['percent-encoded twice', (s) => encodeURIComponent(encodeURIComponent(s))],
    ['percent-encoded, then JSON-escaped twice', (s) => json(json(encodeURIComponent(s)))],
    ['JSON-escaped, then percent-encoded', (s) => encodeURIComponent(json(s))],
    ['encodeURI (+ / = & left as they are)', encodeURI],
    ['HTML-escaped', html],
    [
      'HTML-escaped with &#x27; and &apos;',
      (s) => html(s).replace(/&#39;/g, (_) => (s.length % 2 ? '&#x27;' : '&apos;')),
    ],
    ['HTML-escaped twice', (s) => html(html(s))],
    ['JSON, then HTML (report.html of a JSON body)', (s) => html(json(s))],
    ["Go's JSON of HTML (\\u0026amp;)", (s) => goJson(html(s))],
    ['JSON, then Markdown (report.md)', (s) => mdCell(json(s))],
    ['CSV (a " doubled)', (s) => s.replace(/"/g, '""')],
    [
      'every character as a decimal entity',
      (s) => [...s].map((c) => (/[A-Za-z0-9]/.test(c) ? c : `&#${c.codePointAt(0)};`)).join(''),
    ],
  ];
  for (const value of values) {
    it.each(forms)(`${JSON.stringify(value)}: %s`, (_name, encode) => {
      const form = encode(value);
      const out = scrubOf(value)(`before ${form} after`);
      expect(out).toBe('before [redacted] after');
    });
  }

  it('a space decoded from a + (a key put in a URL unencoded, echoed decoded)', () => {
    expect(scrubOf(BASE64)(`for: ${BASE64.replace(/\+/g, ' ')}.`)).toBe('for: [redacted].');
  });

  it("a value holding %5C or %255C: a run of JSON escapes percent-encoded does not take the value's own (it left the value whole, even raw)", () => {
    expect(scrubOf('pass%5Cword')('raw pass%5Cword')).toBe('raw [redacted]');
    expect(scrubOf('DOM%5Cuser:pw')(JSON.stringify({ u: 'DOM%5Cuser:pw' }))).toBe('{"u":"[redacted]"}');
    expect(scrubOf('DOM%5Cuser:pw')('u=DOM%255Cuser%3Apw&v=1')).toBe('u=[redacted]&v=1');
    expect(scrubOf('Ab\\%5Ccdef')('k: Ab\\%5Ccdef, Ab%5C%255Ccdef')).toBe('k: [redacted], [redacted]');
    expect(scrubOf('%5Cabcdef')('k=%5Cabcdef %255Cabcdef')).toBe('k=[redacted] [redacted]');
  });

  it('a value is replaced every time it occurs, in several forms in one text', () => {
    const text = `${GO_ESCAPED} ${goJson(GO_ESCAPED)} ${encodeURIComponent(GO_ESCAPED)} ${html(GO_ESCAPED)}`;
    expect(scrubOf(GO_ESCAPED)(text)).toBe('[redacted] [redacted] [redacted] [redacted]');
  });
});

describe('the scrubber keeps JSON valid', () => {
  /** A small deterministic generator (the same texts every run). */
  function rng(seed: number): () => number {
    let s = seed;
    return () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  }
  const ALPHABET = ['a', 'n', 'u', 't', '0', '4', 'f', '\\', '"', '/', '&', '<', '+', '=', ' ', '\n', 'é', '%'];

  it('a buckets.ndjson line stays parseable, holding no whole value, for 600 random values and messages', () => {
    const r = rng(42);
    const pick = (n: number) => Array.from({ length: n }, () => ALPHABET[Math.floor(r() * ALPHABET.length)]).join('');
    const encoders = [(s: string) => s, json, goJson, asciiJson, encodeURIComponent, html];
    for (let i = 0; i < 600; i++) {
      const value = `${pick(1)}k${pick(4)}${pick(2)}`;
      if (/^[\d.+\-eE]+$/.test(value)) continue;
      const scrub = scrubOf(value);
      const encode = encoders[i % encoders.length];
      const message = cutMessage(`${pick(3)}${encode(value)}${pick(3)}`, 6 + Math.floor(r() * 30));
      const line = JSON.stringify({ samples: [message, `${pick(5)}${message}`] });
      const out = scrub(line);
      expect(() => JSON.parse(out), `${line} -> ${out}`).not.toThrow();
      expect(JSON.parse(out).samples.join(' ').includes(value), `${line} -> ${out}`).toBe(false);
      // and twice nested, as a k6 output's error tag quoting such a line
      const twice = JSON.stringify({ error: line });
      expect(() => JSON.parse(scrub(twice)), `${twice} -> ${scrub(twice)}`).not.toThrow();
    }
  });

  it('a value starting or ending in " and holding %5C, for 600 random values: lines stay parseable, the value alone in a string or less its quote', () => {
    const r = rng(7);
    const pick = (n: number) => Array.from({ length: n }, () => ALPHABET[Math.floor(r() * ALPHABET.length)]).join('');
    const backslash = () => ['%5C', '%255C', '%5c', '\\%5C', '%5C%5C'][Math.floor(r() * 5)];
    const encoders = [(s: string) => s, json, goJson, encodeURIComponent, html, (s: string) => s.replace(/"/g, '""')];
    for (let i = 0; i < 600; i++) {
      const ends = i % 3; // 0: starts with ", 1: ends with ", 2: both
      const value = `${ends !== 1 ? '"' : ''}${pick(1)}k${backslash()}${pick(2)}${ends !== 0 ? '"' : ''}`;
      const scrub = scrubOf(value);
      const encode = encoders[i % encoders.length];
      const less = [value.replace(/^"/, ''), value.replace(/"$/, ''), value.slice(1, -1)];
      const messages = [
        encode(value),
        `${pick(2)}${encode(value)}`,
        `${encode(value)}${pick(2)}`,
        cutMessage(`${encode(value)}${pick(3)}`, 4 + Math.floor(r() * 10)),
        ...less,
      ];
      const line = JSON.stringify({ samples: messages, n: 1 });
      const out = scrub(line);
      expect(() => JSON.parse(out), `${line} -> ${out}`).not.toThrow();
      for (const m of (JSON.parse(out) as { samples: string[] }).samples.slice(0, 3))
        expect(m.includes(value), `${line} -> ${out}`).toBe(false);
      const twice = JSON.stringify({ error: line });
      expect(() => JSON.parse(scrub(twice)), `${twice} -> ${scrub(twice)}`).not.toThrow();
    }
  });

  it('a value ending in ": the doubled quote of CSV does not take the JSON string\'s closing quote (it gave {"k":"[redacted],"x":1})', () => {
    expect(scrubOf('abcdef"')(JSON.stringify({ k: 'abcdef"', x: 1 }))).toBe('{"k":"[redacted]","x":1}');
    // the value less its quote at a string's end or start: the string's quote is kept
    expect(scrubOf('abcdef"')('{"k":"zzabcdef","x":""}')).toBe('{"k":"zz[redacted]","x":""}');
    expect(scrubOf('"abcdef')('{"k":"abcdefgh"}')).toBe('{"k":"[redacted]gh"}');
    expect(scrubOf('abcd\\"')(JSON.stringify({ k: 'abcd\\' }))).toBe('{"k":"[redacted]"}');
    // where the text is not JSON: CSV's doubled quote, a quote beside the value
    expect(scrubOf('abcdef"')('"abcdef""",1')).toBe('"[redacted]",1');
    expect(scrubOf('"abcdef')('"""abcdef",1')).toBe('"[redacted]",1');
    expect(scrubOf('abcdef"')('key: abcdef" rest')).toBe('key: [redacted]" rest');
  });

  it('a value starting with n is not taken out of an escaped newline before it, nor a hex digit out of a \\u escape', () => {
    expect(scrubOf('nAbcdef')(JSON.stringify({ m: 'x\nAbcdef' }))).toBe('{"m":"x\\nAbcdef"}');
    expect(scrubOf('3cAbcdef')(JSON.stringify({ m: 'x\\u003cAbcdef' }))).toBe('{"m":"x\\\\u00[redacted]"}'); // an escaped \ : the text holds the value
    expect(scrubOf('3cAbcdef')('{"m":"x\\u003cAbcdef"}')).toBe('{"m":"x\\u003cAbcdef"}');
    // after an escaped backslash it is the value
    expect(scrubOf('nAbcdef')(JSON.stringify({ m: 'x\\nAbcdef' }))).toBe('{"m":"x\\\\[redacted]"}');
  });

  it('long runs of backslashes are read once (the runs were backtracked into: a value with 4 backslashes against 2,000 took minutes)', () => {
    const run = '\\'.repeat(20_000);
    expect(scrubOf('ab\\\\\\\\cdef')(`ab${run}x cdef ab\\\\\\\\cdef`)).toBe(`ab${run}x cdef [redacted]`);
    expect(scrubOf('a"b"c"d"ef')(`a${run}x ef${CUT_MARK}`)).toBe(`a${run}x ef${CUT_MARK}`);
    expect(scrubOf('"Abcdef&<')(`${run}x Abcdef ${run}"Abcdef\\u0026<`)).toBe(`${run}x Abcdef [redacted]`);
    expect(secretScrubber([], {})(`${run}x=1 ${run}u0026token=abc`)).toBe(`${run}x=1 ${run}u0026token=[redacted]`);
  });

  it('long runs of \\, %5C, %255C, &amp; and \\u0026 are read once against values made of such characters (a %5C run was read again from each of its places: 100,000 characters took 2 s)', () => {
    // quadratic time takes many seconds on 200,000 characters, linear a few milliseconds
    const units = ['%5C', '%255C', '\\', '&amp;', '\\u0026'];
    const values = [
      '&&&&&&&&',
      '/Abcdef1',
      'C"abcdef',
      '5C"abcdef',
      '%5C"abcdef',
      '\\\\\\\\\\\\',
      '"&"&"&"&',
      '\\u0026\\u0026',
      '&amp;&amp;',
      '%255C%5C&',
    ];
    for (const unit of units) {
      const run = unit.repeat(Math.ceil(200_000 / unit.length));
      for (const value of values) {
        const scrub = scrubOf(value);
        for (const text of [`Abcdef1 abcdef ${run}`, `Abcdef1 abcdef ${run}${CUT_MARK}`, `&${run}${value}`]) {
          const t0 = performance.now();
          scrub(text);
          expect(performance.now() - t0, `${JSON.stringify(value)} against a run of ${unit}`).toBeLessThan(2000);
        }
      }
    }
  });

  it('a \\ as the URL parser sends it in a path, /: found so too, in a JSON line', () => {
    const url = new URL('/hooks/CORP\\svc-account/orders', 'http://h').pathname;
    expect(url).toBe('/hooks/CORP/svc-account/orders');
    expect(scrubOf('CORP\\svc-account')(JSON.stringify({ m: `no hook at ${url}` }))).toBe(
      '{"m":"no hook at /hooks/[redacted]/orders"}',
    );
  });

  it('a value ending in \\ takes the escaped character after it: the line stays JSON', () => {
    const out = scrubOf('Abcdef\\')(JSON.stringify({ m: 'x Abcdef\\"y' }));
    expect(out).toBe('{"m":"x [redacted]y"}');
  });
});

describe("the scrubber at a cut message's mark", () => {
  it.each<[string, string, string, string]>([
    ["Go's escapes cut inside a \\u escape", GO_ESCAPED, `key: Qx7\\\\u0026mP2\\\\u00${CUT_MARK}`, 'key: '],
    ['percent-encoded, cut inside a %XX', BASE64, `for=Zm9v%2BYmFy%2${CUT_MARK}`, 'for='],
    ['JSON-escaped twice', BACKSLASH_QUOTE, `key: Ab\\\\\\\\Cd\\\\\\"E${CUT_MARK}`, 'key: '],
    ['HTML-escaped, cut inside an entity', GO_ESCAPED, `key: Qx7&amp;mP2&l${CUT_MARK}`, 'key: '],
  ])('%s', (_name, value, text, kept) => {
    expect(scrubOf(value)(text)).toBe(`${kept}[redacted]${CUT_MARK}`);
  });

  /** What Node's JSON.parse says of a text it cannot parse (21 characters or more: it quotes a cut of it). */
  const nodeMessage = (text: string) => {
    try {
      JSON.parse(text);
    } catch (err) {
      return (err as Error).message;
    }
    throw new Error(`${text} parsed`);
  };

  it.each<[string, string, string]>([
    ["Node's JSON.parse, the text's start", `${GO_ESCAPED} is not JSON`, `"[redacted]"... is not valid JSON`],
    [
      "Node's JSON.parse, a window around where it failed",
      `{"id": 12, "auth": ${GO_ESCAPED}}`,
      `...", "auth": [redacted]"... is not valid JSON`,
    ],
  ])('%s', (_name, text, expected) => {
    const message = nodeMessage(text);
    expect(message).not.toContain(GO_ESCAPED); // Node cut it
    expect(message).toContain(GO_ESCAPED.slice(0, 10));
    const scrubbed = `Unexpected token 'Q', ${expected}`;
    expect(scrubOf(GO_ESCAPED)(message)).toBe(scrubbed);
    // as a bucket line holds it (JSON-escaped once), and quoted in another message (twice): still JSON
    const once = (m: string) => JSON.stringify({ m });
    expect(scrubOf(GO_ESCAPED)(once(message))).toBe(once(scrubbed));
    expect(scrubOf(GO_ESCAPED)(once(once(message)))).toBe(once(once(scrubbed)));
  });

  it('a start shorter than 3 characters is left, and a start nowhere near a mark too', () => {
    expect(scrubOf(GO_ESCAPED)(`ok Qx${CUT_MARK}`)).toBe(`ok Qx${CUT_MARK}`);
    expect(scrubOf('warmup-test-key-1234')('{"stages":[{"name":"warmup"}]}')).toBe('{"stages":[{"name":"warmup"}]}');
  });
});

describe('values the scrubber leaves alone, as before', () => {
  it('shorter than 6 characters, in any form', () => {
    const scrub = secretScrubber([], { SHORT_KEY: 'a&b<c' });
    for (const t of ['a&b<c', 'a\\u0026b\\u003cc', 'a%26b%3Cc', 'a&amp;b&lt;c']) expect(scrub(t)).toBe(t);
  });

  it('number-like', () => {
    expect(secretScrubber([], { PIN_SECRET: '123456' })('{"n":123456}')).toBe('{"n":123456}');
  });
});

describe("a URL's userinfo", () => {
  // a review: the fix of an unset database URL read "export DB_URL=postgres://host:5432/dbname", its user:password@ stripped
  it("keeps the placeholder of plateau's own fixes, wherever the text goes", () => {
    const fix = `export DB_URL=postgres://${PLACEHOLDER_USERINFO}@host:5432/dbname in the environment`;
    expect(secretScrubber([], {})(fix)).toBe(fix);
    expect(secretScrubber([], {})(JSON.stringify({ evidence: [fix] }))).toBe(JSON.stringify({ evidence: [fix] }));
    expect(secretScrubber([], {})(mdCell(fix))).toBe(mdCell(fix));
  });

  it.each([
    ['a real user and password', 'postgres://shop:hunter2pass@db:5432/shop'],
    ['the placeholder in lower case', 'postgres://user:password@db:5432/shop'],
    ['the placeholder user with a real password', 'postgres://USER:hunter2pass@db:5432/shop'],
    ['the placeholder with more after it', 'postgres://USER:PASSWORD2@db:5432/shop'],
    ['the placeholder with more before it', 'postgres://XUSER:PASSWORD@db:5432/shop'],
    ['a user alone', 'https://admin@shop.example/orders'],
  ])('strips any other: %s', (_, url) => {
    expect(secretScrubber([], {})(`GET ${url} failed`)).toBe(`GET ${url.replace(/\/\/[^@]*@/, '//')} failed`);
  });
});
