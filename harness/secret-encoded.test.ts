import { describe, expect, it } from 'vitest';
import { base64Cores, encodedMatchers } from './secret-encoded.ts';
import { secretScrubber } from './secret-scrub.ts';

/** A password with what base64 and JSON make something of (" \ + / =), and a plain one. */
const PASSWORD = 'pa"ss\\w0rd~?+/=Xy';
const PLAIN = 'hunter2-Correct-Horse';

const scrubOf = (value: string) => secretScrubber(['REV_API_KEY'], { REV_API_KEY: value });
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const b64url = (s: string) => Buffer.from(s, 'utf8').toString('base64url');
const hex = (s: string) => Buffer.from(s, 'utf8').toString('hex');
const xEscaped = (s: string) =>
  [...Buffer.from(s, 'utf8')].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('');
/** A JWT whose payload holds the value inside JSON, after `pad` characters more (each length an alignment). */
const jwt = (value: string, pad: string) =>
  `eyJhbGciOiJIUzI1NiJ9.${b64url(JSON.stringify({ sub: `u${pad}`, tok: value, iat: 1767225600 }))}.c2lnbmF0dXJl`;

/** Users of 3, 4 and 5 bytes before the ':' put the password at each of base64's 3 byte offsets. */
const USERS = ['ab', 'bob', 'user'];

describe('base64 cores', () => {
  it.each([0, 1, 2])('after %i bytes, the core is in base64 of the bytes after any neighbours', (k) => {
    const bytes = Buffer.from(PLAIN);
    const core = base64Cores(bytes)[k];
    for (const before of ['', 'x', 'xy', 'xyz', '\u00ff\u00fe'])
      for (const after of ['', '!', '!?', '\u0000'])
        if (Buffer.byteLength(before) % 3 === k)
          expect(b64(`${before}${PLAIN}${after}`), `${before}|${after}`).toContain(core);
    expect(core.length).toBeGreaterThanOrEqual(Math.floor((8 * bytes.length) / 6) - 2);
  });

  it('a core shorter than the minimum is not searched', () => {
    // "abcd": cores of 5, 4 and 5 characters
    expect(encodedMatchers('abcd', 6).filter((m) => m.kind === 'token')).toEqual([]);
    expect(encodedMatchers('abcd', 4).filter((m) => m.kind === 'token')).toHaveLength(3);
  });
});

describe('the scrubber, base64 and hex of a value', () => {
  const forms: Array<[string, (value: string, user: string) => string, string | ((user: string) => string)]> = [
    ['Authorization: Basic', (v, u) => `Authorization: Basic ${b64(`${u}:${v}`)}`, 'Authorization: Basic [redacted]'],
    [
      'Basic auth echoed in a JSON body',
      (v, u) => JSON.stringify({ headers: { authorization: `Basic ${b64(`${u}:${v}`)}` } }),
      '{"headers":{"authorization":"Basic [redacted]"}}',
    ],
    [
      'Basic auth, JSON-escaped twice (a check message in buckets.ndjson)',
      (v, u) => JSON.stringify(JSON.stringify({ auth: `Basic ${b64(`${u}:${v}`)}` })),
      String.raw`"{\"auth\":\"Basic [redacted]\"}"`,
    ],
    [
      'Basic auth, PHP-escaped slashes',
      (v, u) => `"Basic ${b64(`${u}:${v}`).replace(/\//g, '\\/')}"`,
      '"Basic [redacted]"',
    ],
    ['base64url, unpadded', (v, u) => `token=${b64url(`${u}:${v}`)}; path=/`, 'token=[redacted]; path=/'],
    [
      'base64 in a query, percent-encoded',
      (v, u) => `/echo?t=${encodeURIComponent(b64(`${u}:${v}`))}&n=1`,
      '/echo?t=[redacted]&n=1',
    ],
    [
      'a JWT payload holding it in JSON',
      (v, u) => `Bearer ${jwt(v, u)}`,
      'Bearer eyJhbGciOiJIUzI1NiJ9.[redacted].c2lnbmF0dXJl',
    ],
    // the user's bytes before the value's are whole bytes of the user's: kept
    ['hex, lower-case', (v, u) => `dump: ${hex(`${u}:${v}`)}`, (u) => `dump: ${hex(`${u}:`)}[redacted]`],
    ['hex, upper-case', (v) => `dump: ${hex(v).toUpperCase()} end`, 'dump: [redacted] end'],
    ['\\xNN escapes', (v) => `b'${xEscaped(v)}'`, "b'[redacted]'"],
    ['\\xNN escapes, JSON-escaped', (v) => JSON.stringify({ b: xEscaped(v) }), '{"b":"[redacted]"}'],
  ];
  for (const value of [PASSWORD, PLAIN])
    for (const user of USERS)
      it.each(forms)(`${JSON.stringify(value)} after "${user}:", %s`, (_name, encode, expected) => {
        expect(scrubOf(value)(encode(value, user))).toBe(typeof expected === 'string' ? expected : expected(user));
      });

  it('each alignment of the forms above was met: the password sits at byte offsets 0, 1 and 2', () => {
    expect(USERS.map((u) => (u.length + 1) % 3).sort()).toEqual([0, 1, 2]);
    // and a core of it holds + and / at some alignment, so their other forms were tried
    expect(base64Cores(Buffer.from(PASSWORD)).join('')).toMatch(/\+/);
    expect(base64Cores(Buffer.from(PASSWORD)).join('')).toMatch(/\//);
  });

  it('every form together with the escaped forms of the value, in one text', () => {
    const text = [
      PASSWORD,
      JSON.stringify(PASSWORD),
      encodeURIComponent(PASSWORD),
      `Basic ${b64(`ab:${PASSWORD}`)}`,
      b64url(`xyz${PASSWORD}`),
      hex(PASSWORD),
      xEscaped(PASSWORD),
      jwt(PASSWORD, 'q'),
    ].join(' | ');
    const out = scrubOf(PASSWORD)(JSON.stringify({ samples: [text] }));
    expect(JSON.parse(out)).toEqual({
      samples: [
        [
          '[redacted]',
          '"[redacted]"',
          '[redacted]',
          'Basic [redacted]',
          '[redacted]',
          '[redacted]',
          '[redacted]',
          'eyJhbGciOiJIUzI1NiJ9.[redacted].c2lnbmF0dXJl',
        ].join(' | '),
      ],
    });
  });

  it('long runs of backslashes and of hex digits are read once (a match tried at each place of a run read it again to its end)', () => {
    // a core starting with /, and \xNN escapes: both may begin with a run of backslashes. Read
    // again from each place, 200,000 of them took 50 s here: a million would outlast the test's timeout
    const slashFirst = base64Cores(Buffer.from('?value-1'))[2];
    expect(slashFirst[0]).toBe('/');
    const run = '\\'.repeat(1_000_000);
    expect(scrubOf('?value-1')(`${run}x ${run}${slashFirst}`)).toBe(`${run}x [redacted]`);
    expect(scrubOf(PLAIN)(`${run}x70 ${run}${xEscaped(PLAIN)}`)).toBe(`${run}x70 [redacted]`);
    const digits = '7'.repeat(1_000_000);
    expect(scrubOf('pqrstu')(`${digits}${hex('pqrstu').repeat(100_000)} ${digits}`)).toBe(
      `${digits}${hex('pqrstu').repeat(100_000)} ${digits}`,
    );
  });

  it('a base64 run repeated 20,000 times is one run, replaced once', () => {
    const run = b64(`ab:${PLAIN}`.repeat(3 * 20_000)).replace(/=+$/, '');
    expect(scrubOf(PLAIN)(`x ${run}== y`)).toBe('x [redacted] y');
  });
});

describe('near misses the scrubber leaves alone', () => {
  it.each<[string, string, string]>([
    ['base64 of the value less its last character', PLAIN, `Basic ${b64(`ab:${PLAIN.slice(0, -1)}`)}`],
    ['base64 of the value with one character changed', PLAIN, `Basic ${b64(`bob:${PLAIN.replace('C', 'c')}`)}`],
    ['base64 of a different value of the same length', PLAIN, `Basic ${b64(`user:${'x'.repeat(PLAIN.length)}`)}`],
    ['hex of the value less a byte', PLAIN, `dump: ${hex(PLAIN.slice(1))}`],
    ['hex of the value at an odd digit (not its bytes)', PLAIN, `dump: 7${hex(PLAIN)}`.slice(0, -1)],
    ['base64 of a value too short to be scrubbed', 'abc', `Basic ${b64('user:abc')}`],
    // "pqrstu" is 707172737475 in hex: in a run of digits it is a number's, as a number-like value is left
    ['hex made of digits inside a number', 'pqrstu', '{"n":1707172737475.5,"m":-707172737475}'],
  ])('%s', (_name, value, text) => {
    expect(secretScrubber([], { REV_API_KEY: value })(text)).toBe(text);
  });

  it("hex made of digits among hex letters is the value's, and other base64 beside a match is kept", () => {
    expect(scrubOf('pqrstu')(`dump: ab${hex('pqrstu')}cd`)).toBe('dump: ab[redacted]cd');
    expect(scrubOf(PLAIN)(`Basic ${b64(`ab:${PLAIN}`)} then ${b64('other text')}`)).toBe(
      `Basic [redacted] then ${b64('other text')}`,
    );
  });
});

describe('base64 and hex keep JSON valid', () => {
  /** A small deterministic generator (the same texts every run). */
  function rng(seed: number): () => number {
    let s = seed;
    return () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  }
  const ALPHABET = ['a', 'Q', '0', '7', '\\', '"', '/', '+', '=', '-', '_', ' ', 'é', '%'];

  it('a buckets.ndjson line quoting a value base64- or hex-encoded, for 600 random values: parseable, holding no core', () => {
    const r = rng(11);
    const pick = (n: number) => Array.from({ length: n }, () => ALPHABET[Math.floor(r() * ALPHABET.length)]).join('');
    const encoders = [b64, b64url, hex, (s: string) => hex(s).toUpperCase(), (s: string) => JSON.stringify(b64(s))];
    for (let i = 0; i < 600; i++) {
      const value = `${pick(2)}k${pick(5)}`;
      const scrub = scrubOf(value);
      const message = `${pick(3)}${encoders[i % encoders.length](`${pick(i % 3)}${value}${pick(2)}`)}${pick(3)}`;
      const line = JSON.stringify({ samples: [message], n: 1.5e-7 });
      const out = scrub(line);
      expect(() => JSON.parse(out), `${line} -> ${out}`).not.toThrow();
      const kept = (JSON.parse(out) as { samples: string[] }).samples[0];
      for (const core of [...base64Cores(Buffer.from(value)), hex(value)])
        expect(kept.includes(core), `${line} -> ${out}`).toBe(false);
    }
  });
});
