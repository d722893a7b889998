/**
 * A stand-in for k6 itself, so a test can run a generated k6 script in Node: the script (exactly
 * as bundleK6Script wrote it) is bundled once more with its `k6` and `k6/*` imports aliased to
 * the small modules below, which call into a FakeK6 on globalThis that records what the script
 * did (requests, metric samples, checks, sleeps, files opened) and answers requests with the
 * test's responder. Only k6's API is faked; everything the script runs of plateau is the real code.
 * The globals k6 gives a script (open, __ENV) are installed for the duration of the load.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createHmac, randomBytes } from 'node:crypto';
import * as esbuild from 'esbuild';

export interface FakeRequest {
  method: string;
  url: string;
  body: string | ArrayBuffer | null;
  params: {
    headers?: Record<string, string>;
    tags?: Record<string, string>;
    responseType?: string;
    redirects?: number;
    timeout?: string;
  };
  /** Sent with http.asyncRequest (else http.request). */
  async: boolean;
  /** k6's iterationInTest when it was sent. */
  iteration: number;
}

/** What the test's server stand-in answers; `error`/`errorCode` make a transport failure (status 0). */
export interface FakeAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  error?: string;
  errorCode?: number;
}

export interface FakeSample {
  metric: string;
  value: number;
  tags: Record<string, string>;
  iteration: number;
}

export interface FakeK6 {
  requests: FakeRequest[];
  samples: FakeSample[];
  checks: { name: string; ok: boolean; iteration: number }[];
  /** Seconds given to k6's sleep. */
  sleeps: number[];
  opened: string[];
  sharedArrays: string[];
  /** Keys k6's deep freeze walked on the reads of each SharedArray, by its name (a string element walks its every character). */
  frozenKeys: Record<string, number>;
  /** Metrics created, by name and type (created in the init context, as k6 requires). */
  metrics: Record<string, string>;
  iterationInTest: number;
  /** http.asyncRequest calls not yet answered, and the most there were at once. */
  asyncInFlight: number;
  asyncMostInFlight: number;
  /** The response's timings.duration (ms) every answer gets. */
  durationMs: number;
  respond(req: FakeRequest): FakeAnswer;
}

const GLOBAL = '__plateauFakeK6';

/** The fake modules, by specifier: each forwards to the FakeK6 installed on globalThis. */
const MODULES: Record<string, string> = {
  k6: `const f = globalThis.${GLOBAL};
export function check(val, sets) {
  let all = true;
  for (const name of Object.keys(sets)) {
    const ok = !!sets[name](val);
    f.checks.push({ name, ok, iteration: f.iterationInTest });
    all = all && ok;
  }
  return all;
}
export function sleep(s) { f.sleeps.push(s); }
export default { check, sleep };`,
  'k6/http': `const f = globalThis.${GLOBAL};
function send(async, method, url, body, params) {
  const req = { method, url, body, params: params ?? {}, async, iteration: f.iterationInTest };
  f.requests.push(req);
  const a = f.respond(req);
  const kept = req.params.responseType === 'text' || req.params.responseType === undefined;
  return {
    status: a.status, headers: a.headers ?? {}, body: kept ? (a.body ?? '') : null,
    error: a.error ?? '', error_code: a.errorCode ?? 0, timings: { duration: f.durationMs },
  };
}
export default {
  request: (...a) => send(false, ...a),
  // in flight from its call until the script's next microtask: sends made together overlap
  asyncRequest: (...a) => {
    f.asyncMostInFlight = Math.max(f.asyncMostInFlight, ++f.asyncInFlight);
    return Promise.resolve().then(() => {
      f.asyncInFlight--;
      return send(true, ...a);
    });
  },
};`,
  'k6/execution': `const f = globalThis.${GLOBAL};
export default { get scenario() { return { iterationInTest: f.iterationInTest }; } };`,
  'k6/metrics': `const f = globalThis.${GLOBAL};
class Metric {
  constructor(name, type) { this.name = name; f.metrics[name] = type; }
  add(value, tags) { f.samples.push({ metric: this.name, value: Number(value), tags: tags ?? {}, iteration: f.iterationInTest }); }
}
export class Counter extends Metric { constructor(n) { super(n, 'counter'); } }
export class Trend extends Metric { constructor(n) { super(n, 'trend'); } }`,
  // k6 keeps each element as its JSON.stringify and, on each read, parses it and deep-freezes it:
  // Object.freeze, then each own key of the value made an object (a string's every character) in turn
  'k6/data': `const f = globalThis.${GLOBAL};
function deepFreeze(v, name) {
  if (v === null) return v;
  Object.freeze(v);
  const o = Object(v);
  for (const k of Object.keys(o)) {
    f.frozenKeys[name] = (f.frozenKeys[name] ?? 0) + 1;
    if (!Object.isFrozen(o[k])) deepFreeze(o[k], name);
  }
  return v;
}
export class SharedArray {
  constructor(name, make) {
    f.sharedArrays.push(name);
    const kept = make().map((r) => JSON.stringify(r));
    return new Proxy(kept, {
      get: (t, p) => (typeof p === 'string' && /^\\d+$/.test(p) ? deepFreeze(JSON.parse(t[Number(p)]), name) : Reflect.get(t, p)),
      set: () => { throw new TypeError('SharedArray is immutable'); },
    });
  }
}`,
  'k6/crypto': `const f = globalThis.${GLOBAL};
export default { randomBytes: (n) => f.randomBytes(n), hmac: (alg, key, data, enc) => f.hmac(alg, key, data, enc) };`,
};

const fakeModules: esbuild.Plugin = {
  name: 'fake-k6',
  setup(build) {
    build.onResolve({ filter: /^k6(\/.*)?$/ }, (a) => {
      if (!(a.path in MODULES)) return { errors: [{ text: `the fake k6 has no module ${a.path}: add it to MODULES` }] };
      return { path: a.path, namespace: 'fake-k6' };
    });
    build.onLoad({ filter: /.*/, namespace: 'fake-k6' }, (a) => ({ contents: MODULES[a.path], loader: 'js' }));
  },
};

let loads = 0;

export interface LoadedScript {
  fake: FakeK6;
  options: unknown;
  /**
   * The script's setup() as k6 runs it once a test (undefined when it exports none), and its
   * value, which k6 gives every iteration: pass it to iterate.
   */
  setup?: () => unknown;
  /** The script's default function: one iteration (the fake's iterationInTest is set first), given setup()'s value. */
  iterate(iterationInTest: number, data?: unknown): Promise<void>;
}

/**
 * Runs the script's init context against a fresh FakeK6 and returns its default function. The
 * responder answers every request; env is the script's __ENV.
 */
export async function loadWithFakeK6(
  script: string,
  respond: FakeK6['respond'],
  env: Record<string, string> = {},
  /** The folder the script is in: open() resolves a relative path there, as k6 does. */
  scriptDir = process.cwd(),
): Promise<LoadedScript> {
  const out = await esbuild.build({
    stdin: { contents: script, loader: 'js', sourcefile: 'k6-script.js' },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    plugins: [fakeModules],
    logLevel: 'silent',
  });
  const fake: FakeK6 = {
    requests: [],
    samples: [],
    checks: [],
    sleeps: [],
    opened: [],
    sharedArrays: [],
    frozenKeys: {},
    metrics: {},
    iterationInTest: 0,
    asyncInFlight: 0,
    asyncMostInFlight: 0,
    durationMs: 7.5,
    respond,
  };
  const helpers = {
    randomBytes: (n: number) => new Uint8Array(randomBytes(n)).buffer,
    hmac: (alg: string, key: string, data: string | ArrayBuffer, enc: 'hex') =>
      createHmac(alg, key)
        .update(typeof data === 'string' ? data : Buffer.from(data))
        .digest(enc),
  };
  const g = globalThis as Record<string, unknown>;
  g[GLOBAL] = Object.assign(fake, helpers);
  g.__ENV = env;
  g.open = (file: string) => {
    fake.opened.push(file);
    return fs.readFileSync(path.resolve(scriptDir, file), 'utf8');
  };
  let mod: { default: (data?: unknown) => void | Promise<void>; options: unknown; setup?: () => unknown };
  try {
    // a module of its own per load (the same text twice would be one cached module, bound to the first fake)
    const code = `${out.outputFiles[0].text}\n// load ${++loads}\n`;
    const url = `data:text/javascript;base64,${Buffer.from(code).toString('base64')}`;
    mod = (await import(url)) as typeof mod;
  } finally {
    // open() exists only in k6's init context
    delete g.open;
  }
  return {
    fake,
    options: mod.options,
    ...(mod.setup ? { setup: mod.setup } : {}),
    async iterate(iterationInTest: number, data?: unknown) {
      fake.iterationInTest = iterationInTest;
      await mod.default(data);
    },
  };
}
