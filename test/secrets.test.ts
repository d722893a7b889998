/**
 * Secrets (issue 8): values given through the environment (the demo's HMAC key, a bearer token in
 * a header) appear in no file of the run directory and no line plateau prints, even when the target
 * echoes them back into error messages, a scenario's check() quotes them, or the preflight's sample
 * request fails with a body that repeats them.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startDemo } from '../demo/server.ts';
import { base64Cores } from '../harness/secret-encoded.ts';
import { secretScrubber } from '../harness/secret-scrub.ts';
import { undeclaredFix, undeclaredProblem } from '../harness/scenario/scenario-env.ts';
import { importK6 } from '../harness/k6/import/import.ts';
import { mergeRuns } from '../harness/merge.ts';
import { tinyServer } from './helpers/tiny-server.ts';
import { cliInProcess } from './helpers/cli.ts';
import { runQuietly, tempRunsDir } from './helpers/pipeline.ts';

const runsDir = tempRunsDir();
afterAll(() => fs.rmSync(runsDir, { recursive: true, force: true }));

const unique = (what: string) => `${what}-${process.pid}-${Math.random().toString(36).slice(2)}-Zq9`;
const fixture = (name: string) => path.resolve(`test/fixtures/scenarios/${name}.ts`);

/** Every file under the run directory, read whole (bytes as latin1, so nothing is skipped). */
function everyFile(dir: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const p = path.join(e.parentPath ?? (e as unknown as { path: string }).path, e.name);
    if (e.isFile()) out.push([path.relative(dir, p), fs.readFileSync(p, 'latin1')]);
  }
  return out;
}

function expectNowhere(secret: string, dir: string, lines: string[], extra: string[] = []): void {
  const files = everyFile(dir);
  expect(files.map(([f]) => f)).toEqual(
    expect.arrayContaining(['run.json', 'buckets.ndjson', 'report.md', 'summary.json', 'steps.csv']),
  );
  for (const [f, text] of files) expect(text.includes(secret), `${f} contains the secret`).toBe(false);
  for (const l of [...lines, ...extra])
    expect(l.includes(secret), `line contains the secret: ${l.slice(0, 80)}`).toBe(false);
}

const steps = { startPerSec: 20, stepPerSec: 20, maxPerSec: 20, rampS: 0, holdS: 2, settleS: 1 };

describe('secrets never reach an output', () => {
  it('a whole run against the demo with an HMAC key and a bearer token', async () => {
    const hmacKey = unique('hmac');
    const token = unique('token');
    const demo = await startDemo({ slots: 4, holdMs: 1, hmacKey });
    try {
      const r = await runQuietly(
        {
          target: { url: `${demo.url}/orders`, rttPath: '/ping' },
          scenario: fixture('demo-with-token'),
          steps,
          warmup: { ratePerSec: 10, windowS: 1, stableWindows: 2, maxS: 2 },
          rtt: { samples: 3 },
          output: { dir: runsDir, runId: 'secrets-demo' },
        },
        { env: { ...process.env, PLATEAU_DEMO_HMAC_KEY: hmacKey, PLATEAU_TEST_TOKEN: token } },
      );
      expect(r.exitCode, r.lines.join('')).toBe(0);
      expect(r.result.steps[0].ok).toBeGreaterThan(0); // the secrets were used: the demo accepted the signatures
      expectNowhere(hmacKey, r.dir, r.lines);
      expectNowhere(token, r.dir, r.lines);
      expect(fs.readFileSync(path.join(r.dir, 'run.json'), 'utf8')).toContain(
        'secrets present: PLATEAU_DEMO_HMAC_KEY, PLATEAU_TEST_TOKEN (values never recorded)',
      );
    } finally {
      await demo.close();
    }
  });

  /** A scenario (token-echo's by default) against an echoing target, the token in the environment. */
  const echoRun = (url: string, runId: string, token: string, scenario = 'token-echo') =>
    runQuietly(
      {
        target: { url: `${url}/load` },
        scenario: fixture(scenario),
        steps,
        warmup: { enabled: false },
        rtt: { samples: 2 },
        verdicts: { confirmFailedStep: false },
        output: { dir: runsDir, runId },
      },
      { env: { ...process.env, PLATEAU_TEST_TOKEN: token } },
    );

  it("a target that echoes the token into every response, quoted by the scenario's check(), across the message's cut", async () => {
    const token = unique('token');
    let n = 0;
    // "check: target answered for " is 27 characters, then 250 of padding and "Bearer ": the token
    // starts at 284 and the engine cuts a message at 300, so not even the token's start may be kept
    const echo = await tinyServer((req: http.IncomingMessage, res: http.ServerResponse) => {
      if (req.url === '/load' && n++ > 0) res.setHeader('x-echo', `${'x'.repeat(250)}${req.headers.authorization}`);
      res.end('ok');
    });
    try {
      const r = await echoRun(echo.url, 'secrets-echo', token);
      expect(r.exitCode, r.lines.join('')).toBe(0);
      const buckets = fs.readFileSync(path.join(r.dir, 'buckets.ndjson'), 'utf8');
      // the message is kept, the secret is not
      expect(buckets).toContain(`check: target answered for ${'x'.repeat(250)}Bearer [redacted]`);
      expectNowhere(token.slice(0, 12), r.dir, r.lines);
    } finally {
      await echo.close();
    }
  });

  it('a target that echoes the token escaped and encoded (Go-style JSON, twice JSON, percent-encoded, HTML, base64): no form of it reaches a file', async () => {
    // a token with what escaping and encoding change: & < > " \\ + / = and a space, around a unique part
    const id = unique('tok');
    const token = `x&<${id}>"\\+/= Zq`;
    const go = (s: string) => JSON.stringify(s).replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
    const base64 = (s: string, encoding: 'base64' | 'base64url' = 'base64') => Buffer.from(s).toString(encoding);
    let n = 0;
    const echo = await tinyServer((req: http.IncomingMessage, res: http.ServerResponse) => {
      const auth = String(req.headers.authorization);
      if (req.url === '/load' && n++ > 0 && n % 2 === 0) {
        // every other answer echoes it as base64: Basic auth, and a JWT-like payload holding it in JSON
        // (the other forms fill the 300 characters a sample keeps)
        res.setHeader('x-echo', `Basic ${base64(`svc:${auth}`)} ${base64(JSON.stringify({ tok: auth }), 'base64url')}`);
      } else if (req.url === '/load' && n > 1) {
        const body = `{"key":${go(auth)},"url":${go(`/echo?ok=1&apikey=${encodeURIComponent(auth)}&for=${encodeURIComponent(auth)}`)}}`;
        res.setHeader(
          'x-echo',
          `${body} ${JSON.stringify(JSON.stringify(auth))} ${auth.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`)}`,
        );
      }
      res.end('ok');
    });
    try {
      const r = await echoRun(echo.url, 'secrets-echo-encoded', token);
      expect(r.exitCode, r.lines.join('')).toBe(0);
      const buckets = fs.readFileSync(path.join(r.dir, 'buckets.ndjson'), 'utf8');
      // the message is kept, each form of the token replaced, the parameter after Go's \u0026 redacted by its name
      expect(buckets).toContain(
        String.raw`check: target answered for {\"key\":\"Bearer [redacted]\",\"url\":\"/echo?ok=1\\u0026apikey=[redacted]\\u0026for=Bearer%20[redacted]\"}`,
      );
      expect(buckets).toContain('check: target answered for Basic [redacted] [redacted]');
      // every escaped form holds the unique part as it is, a base64 form one of its cores: none is left in any file or line
      expectNowhere(id, r.dir, r.lines);
      const bytes = [Buffer.from(token), Buffer.from(JSON.stringify(token).slice(1, -1))];
      for (const core of bytes.flatMap(base64Cores)) {
        expectNowhere(core, r.dir, r.lines);
        expectNowhere(core.replace(/\+/g, '-').replace(/\//g, '_'), r.dir, r.lines);
      }
    } finally {
      await echo.close();
    }
  });

  it("a check whose JSON.parse throws on a body that is the token as text: Node's message quotes the text cut short, and the token's start is not kept", async () => {
    const token = unique('token');
    let n = 0;
    // the first answer (preflight's sample) is JSON; then the token alone, or inside a body that is not JSON
    const echo = await tinyServer((req, res) => {
      const t = String(req.headers.authorization).slice('Bearer '.length);
      res.end(req.url !== '/load' || n++ === 0 ? '{"ok":true}' : n % 2 ? `${t} is not valid here` : `{"auth": ${t}}`);
    });
    try {
      const r = await echoRun(echo.url, 'secrets-json-parse', token, 'token-json-check');
      expect(r.exitCode, r.lines.join('')).toBe(0);
      const buckets = fs.readFileSync(path.join(r.dir, 'buckets.ndjson'), 'utf8');
      // both of Node's forms were met: the text's start, and a window around where parsing failed
      expect(buckets).toContain(String.raw`\"[redacted]\"... is not valid JSON`);
      expect(buckets).toContain(String.raw`...\"{\"auth\": [redacted]\"... is not valid JSON`);
      expectNowhere(token.slice(0, 'token-'.length + 3), r.dir, r.lines);
    } finally {
      await echo.close();
    }
  });

  it('a token with a \\ in the request path, which the URL parser sends as /, echoed by a target that answers 404: found so too', async () => {
    const id = unique('svc');
    const token = `CORP\\${id}`;
    let n = 0;
    const echo = await tinyServer((req, res) => {
      res.statusCode = req.url?.startsWith('/hooks/') && n++ > 0 ? 404 : 200;
      res.end(`no hook at ${req.url}`);
    });
    try {
      const r = await echoRun(echo.url, 'secrets-path-backslash', token, 'token-in-path');
      expect(r.exitCode, r.lines.join('')).toBe(0);
      expect(fs.readFileSync(path.join(r.dir, 'buckets.ndjson'), 'utf8')).toContain(
        'no hook at /hooks/[redacted]/orders',
      );
      expectNowhere(id, r.dir, r.lines);
    } finally {
      await echo.close();
    }
  });

  it("a value read through ctx.env from a variable not in the scenario's secrets, which the target would echo: refused before load, with the fix", async () => {
    const value = unique('authval');
    const echo = await tinyServer((req, res) => {
      res.statusCode = req.url === '/load' ? 401 : 200;
      res.end(`unauthorized: got ${String(req.headers.authorization)}`);
    });
    try {
      const r = await runQuietly(
        {
          target: { url: `${echo.url}/load` },
          scenario: fixture('undeclared-env-echo'),
          steps,
          warmup: { enabled: false },
          rtt: { samples: 2 },
          output: { dir: runsDir, runId: 'secrets-undeclared-env' },
        },
        { env: { ...process.env, PLATEAU_TEST_AUTH: value } },
      );
      expect(r.exitCode).toBe(3);
      expect(r.error?.message).toContain(undeclaredProblem('PLATEAU_TEST_AUTH'));
      expect(r.error?.hint).toContain(undeclaredFix('PLATEAU_TEST_AUTH'));
      expectNowhere(value, r.dir, r.lines, [r.error!.message, r.error!.hint]);
    } finally {
      await echo.close();
    }
  });

  it('a sample request refused with a body that repeats the token: the preflight message keeps no secret', async () => {
    const token = unique('token');
    const refuse = await tinyServer((req, res) => {
      if (req.url === '/load') {
        res.statusCode = 401;
        res.end(`invalid credentials ${String(req.headers.authorization)}`);
        return;
      }
      res.end('ok');
    });
    try {
      const r = await runQuietly(
        {
          target: { url: `${refuse.url}/load` },
          scenario: fixture('token-echo'),
          steps,
          warmup: { enabled: false },
          rtt: { samples: 2 },
          output: { dir: runsDir, runId: 'secrets-preflight' },
        },
        { env: { ...process.env, PLATEAU_TEST_TOKEN: token } },
      );
      expect(r.exitCode).toBe(3);
      expect(r.error?.message).toMatch(/got 401: invalid credentials Bearer \[redacted\]/);
      expectNowhere(token, r.dir, r.lines, [r.error!.message, r.error!.hint]);
    } finally {
      await refuse.close();
    }
  });
});

describe('the scrubber', () => {
  it.each<[string, NodeJS.ProcessEnv, string[], string, string]>([
    ['a declared secret', { MY_CRED: 's3cr3t-value' }, ['MY_CRED'], 'got s3cr3t-value back', 'got [redacted] back'],
    [
      'a secret-looking name, undeclared',
      { API_TOKEN: 'abcdef123' },
      [],
      'x abcdef123 y abcdef123',
      'x [redacted] y [redacted]',
    ],
    [
      'its JSON-escaped form',
      { SOME_SECRET: 'a"b\\cdef' },
      [],
      JSON.stringify({ m: 'a"b\\cdef' }),
      '{"m":"[redacted]"}',
    ],
    ['a short value is left alone', { SHORT_KEY: 'abc' }, [], 'abc', 'abc'],
    [
      'a number-like value is left alone (run.json numbers)',
      { PIN_SECRET: '123456' },
      [],
      '{"n":123456}',
      '{"n":123456}',
    ],
    ['an ordinary variable is left alone', { HOME: '/root/home' }, [], '/root/home', '/root/home'],
    [
      'URL credentials are stripped',
      {},
      [],
      'GET https://admin:hunter2pass@shop.example/orders failed',
      'GET https://shop.example/orders failed',
    ],
    [
      'secret-looking URL parameters are redacted',
      {},
      [],
      '{"url":"http://h/x?access_token=abc&page=2&api_key=def#id_token=ghi"}',
      '{"url":"http://h/x?access_token=[redacted]&page=2&api_key=[redacted]#id_token=[redacted]"}',
    ],
    [
      "a secret's start that a cut left before its mark (…), from 3 characters of it",
      { API_TOKEN: 'tok-0123456789abcdef' },
      [],
      '{"samples":["other: failed for tok-01234…","ok to…","tok-0123 is whole text"]}',
      '{"samples":["other: failed for [redacted]…","ok to…","tok-0123 is whole text"]}',
    ],
    [
      "a secret that begins with a common word leaves that word alone where nothing was cut (run.json's keys)",
      { PLATEAU_DEMO_HMAC_KEY: 'warmup-test-key-1234' },
      [],
      '{"stages":[{"name":"warmup","warmup":{"stable":true}}]}',
      '{"stages":[{"name":"warmup","warmup":{"stable":true}}]}',
    ],
    [
      'other URL parameters and e-mail addresses are left alone',
      {},
      [],
      'http://h/x?monkey=1&keyboard=2 ops@example.com',
      'http://h/x?monkey=1&keyboard=2 ops@example.com',
    ],
  ])('%s', (_name, env, declared, text, expected) => {
    expect(secretScrubber(declared, env)(text)).toBe(expected);
  });
});

/**
 * A k6 JSON-lines output: 12 s at 10 req/s, one request a second failing with an error that quotes
 * the token, every other second after 148 characters of padding: its message ("other: request
 * failed: ", the padding, "Authorization Bearer ") puts the token at character 192 of 200.
 */
/** `shiftMs`: the same output that much later (another load generator's: merged with the first, not the same run twice). */
function k6Output(file: string, token: string, shiftMs = 0): void {
  const t0 = Date.parse('2026-01-01T00:00:00Z') + shiftMs;
  const point = (metric: string, tMs: number, value: number, tags: Record<string, string>) =>
    JSON.stringify({
      metric,
      type: 'Point',
      data: { time: new Date(tMs).toISOString(), value, tags: { group: '', scenario: 'steps', ...tags } },
    });
  const lines: string[] = [];
  for (let s = 0; s < 12; s++) {
    lines.push(point('vus', t0 + s * 1000 + 1000, 10, {}), point('vus_max', t0 + s * 1000 + 1000, 10, {}));
    for (let i = 0; i < 10; i++) {
      const t = t0 + s * 1000 + i * 100 + 50;
      const tags: Record<string, string> =
        i === 0
          ? {
              status: '0',
              expected_response: 'false',
              error_code: '1000',
              // every other second padded so that the token crosses character 200, where the message is cut
              error: `request failed: ${s % 2 ? 'x'.repeat(148) : ''}Authorization Bearer ${token} rejected`,
            }
          : { status: '200', expected_response: 'true' };
      lines.push(
        point('http_reqs', t, 1, tags),
        point('http_req_duration', t, 5, tags),
        point('iteration_duration', t, 6, {}),
      );
    }
  }
  fs.writeFileSync(file, lines.join('\n') + '\n');
}

describe('plateau import k6 and report --merge scrub like a run', () => {
  const TOKEN_VAR = 'MY_API_TOKEN';
  const steps = { startPerSec: 10, stepPerSec: 10, maxPerSec: 10, rampS: 1, holdS: 8, settleS: 2 };
  const saved = process.env[TOKEN_VAR];
  afterAll(() => {
    if (saved === undefined) delete process.env[TOKEN_VAR];
    else process.env[TOKEN_VAR] = saved;
  });

  it("a token of the environment in k6's error tags reaches no file of the import", async () => {
    const token = unique('tok');
    const file = path.join(runsDir, 'k6-token.ndjson');
    k6Output(file, token);
    process.env[TOKEN_VAR] = token;
    const r = await importK6({ file, outDir: runsDir, runId: 'secrets-import', steps });
    expect(r.result.steps[0].failed).toBeGreaterThan(0); // the failed requests were read
    expect(fs.readFileSync(path.join(r.dir, 'buckets.ndjson'), 'utf8')).toContain(
      'Authorization Bearer [redacted] rejected',
    );
    expectNowhere(token.slice(0, 8), r.dir, []);
  });

  it('rebuilding the reports of a run that kept the token (imported without it in the environment) writes it in no output', async () => {
    const token = unique('tok');
    const file = path.join(runsDir, 'k6-token-report.ndjson');
    k6Output(file, token);
    delete process.env[TOKEN_VAR];
    const r = await importK6({ file, outDir: runsDir, runId: 'secrets-report-again', steps });
    expect(fs.readFileSync(path.join(r.dir, 'report.md'), 'utf8')).toContain(token); // nothing said it was secret then
    process.env[TOKEN_VAR] = token; // the command reads the process's environment, as bin/plateau.js's would be
    const again = await cliInProcess(['report', r.dir]);
    expect(again.status, again.stderr).toBe(0);
    expect(fs.readFileSync(path.join(r.dir, 'report.md'), 'utf8')).toContain(
      'Authorization Bearer [redacted] rejected',
    );
    // the store is left as it was (a report is rebuilt from it alone); every output rebuilt from it holds no token
    const outputs = everyFile(r.dir).filter(([f]) => !['run.json', 'buckets.ndjson'].includes(f));
    expect(outputs.map(([f]) => f)).toEqual(expect.arrayContaining(['report.md', 'report.html', 'summary.json']));
    for (const [f, text] of outputs) expect(text.includes(token), `${f} holds the token`).toBe(false);
    expect(again.stdout.includes(token)).toBe(false);
  });

  it('merging runs that kept the token (imported without it in the environment) writes it nowhere', async () => {
    const token = unique('tok');
    const file = path.join(runsDir, 'k6-token-merge.ndjson');
    const other = path.join(runsDir, 'k6-token-merge-other.ndjson');
    k6Output(file, token);
    k6Output(other, token, 300);
    delete process.env[TOKEN_VAR];
    const a = await importK6({ file, outDir: runsDir, runId: 'secrets-merge-a', steps });
    const b = await importK6({ file: other, outDir: runsDir, runId: 'secrets-merge-b', steps });
    expect(fs.readFileSync(path.join(a.dir, 'buckets.ndjson'), 'utf8')).toContain(token); // nothing said it was secret then
    process.env[TOKEN_VAR] = token;
    const m = await mergeRuns({ dirs: [a.dir, b.dir], outDir: runsDir, runId: 'secrets-merged' });
    expect(m.result.steps[0].failed).toBe(a.result.steps[0].failed + b.result.steps[0].failed);
    expectNowhere(token, m.dir, []);
  });
});
