import { describe, expect, it } from 'vitest';
import { secretScrubber } from '../secret-scrub.ts';
import { cutMessage } from '../cut-message.ts';
import type { BucketRecord } from '../../analysis/types.ts';
import { HostSampler } from './host-sampler.ts';
import { BucketRecorder } from './recorder.ts';
import { NameBook } from '../scenario/names.ts';
import { newOutcome, type Outcome } from './outcome.ts';

describe("BucketRecorder and the cgroup's throttled time", () => {
  it('gives each second the throttled ms since the last one; after a stall, all to the first second it spanned', () => {
    let counter = 1_000; // cumulative ms, as cpu.stat has it
    const out: BucketRecord[] = [];
    const rec = new BucketRecorder(
      'steps',
      'native/0',
      0,
      (r) => out.push(r),
      0,
      new HostSampler({ throttled: () => counter }),
    );
    counter += 30;
    rec.tick(1_200); // second 0 ends
    counter += 250;
    rec.tick(4_100); // a stall: seconds 1 to 3 end at once
    counter += 5;
    rec.close(4_500);
    expect(out.map((r) => [r.tS, r.throttledMs])).toEqual([
      [0, 30],
      [1, 250],
      [2, 0],
      [3, 0],
      [4, 5],
    ]);
  });

  it('writes none when it does not read the counter (no quota, or another instance reads it)', () => {
    const out: BucketRecord[] = [];
    const rec = new BucketRecorder('steps', 'native/1', 0, (r) => out.push(r));
    rec.tick(1_200);
    rec.close(1_500);
    expect(out.every((r) => !('throttledMs' in r) && !('cpuSteal' in r))).toBe(true);
  });
});

describe("BucketRecorder and the machine's CPU steal", () => {
  it("gives each second the share of all CPUs' time stolen since the last one; a stall's seconds share it", () => {
    let t = { steal: 100, total: 10_000 };
    const out: BucketRecord[] = [];
    const rec = new BucketRecorder(
      'steps',
      'native/0',
      0,
      (r) => out.push(r),
      0,
      new HostSampler({ cpuTimes: () => t }),
    );
    t = { steal: 120, total: 10_200 }; // 20 of 200 ticks: 10%
    rec.tick(1_100);
    t = { steal: 126, total: 10_800 }; // 6 of 600 over three seconds: 1% each
    rec.tick(3_900);
    t = { steal: 126, total: 10_800 }; // no time passed: not read, left out
    rec.close(3_950);
    expect(out.map((r) => [r.tS, r.cpuSteal])).toEqual([
      [0, 0.1],
      [1, 0.01],
      [2, 0.01],
      [3, undefined],
    ]);
  });
});

describe("BucketRecorder and the generator process's CPU", () => {
  it("gives each second the share of its CPUs the process used since the last sample; a stall's seconds share it", () => {
    let cpuMs = 5_000;
    let wallMs = 0;
    const out: BucketRecord[] = [];
    const host = new HostSampler({ process: { cpuMs: () => cpuMs, cpus: 2 }, nowMs: () => wallMs });
    const rec = new BucketRecorder('steps', 'native/0', 0, (r) => out.push(r), 0, host);
    cpuMs += 500;
    wallMs += 1_000; // 500 ms of CPU in 1 s of 2 CPUs: 25%
    rec.tick(1_100);
    cpuMs += 4_500;
    wallMs += 3_000; // 4.5 s in 3 s of 2 CPUs: 75% over the stall's three seconds
    rec.tick(3_900);
    rec.close(3_950); // no wall time passed: not read
    expect(out.map((r) => [r.tS, r.processCpu])).toEqual([
      [0, 0.25],
      [1, 0.75],
      [2, 0.75],
      [3, undefined],
    ]);
  });

  it('reads this process through process.cpuUsage(), and another (k6) through /proc, null once it is gone', async () => {
    const { processCpuMsReader } = await import('../process-cpu.ts');
    const self = processCpuMsReader();
    const before = self()!;
    const until = Date.now() + 2_000; // spins until its CPU time moved 20 ms (bounded)
    while (self()! - before < 20 && Date.now() < until);
    expect(self()! - before).toBeGreaterThanOrEqual(20);
    const stat = '4242 (k6 (a) b) S 1 4242 4242 0 -1 4194560 100 0 0 0 150 50 3 4 20 0 12 0 100 0 0';
    expect(processCpuMsReader(4242, (f) => (f === '/proc/4242/stat' ? stat : null))()).toBe(2000);
    expect(processCpuMsReader(4243, () => null)()).toBeNull();
  });
});

describe('BucketRecorder and error messages', () => {
  it("keeps a refusal with its fix whole, and cuts a target's long text to 300 characters", () => {
    const out: BucketRecord[] = [];
    const rec = new BucketRecorder('steps', 'native/0', 0, (r) => out.push(r));
    // the longest of plateau's own: a name built from data, refused after 10 of its shape
    const book = new NameBook([]);
    for (let seq = 9; seq < 100; seq += 9) book.problem(`item ${seq}`);
    const refusal = book.problem('item 99')!;
    expect(refusal).toMatch(/built from data; give each request a fixed name .* at most 100 per run$/);
    rec.iterationError(100, refusal);
    rec.iterationError(200, `the target said ${'x'.repeat(500)}`);
    rec.close(500);
    const [kept, cut] = out[0].samples!;
    expect(kept).toBe(`other: ${refusal}`);
    expect(cut).toHaveLength(300);
  });

  it("marks a cut message, so the store's scrubbing leaves no part of a secret the cut split", () => {
    const secret = 'tok-0123456789abcdefghijklmnopqrstuvwxyz';
    const scrub = secretScrubber([], { PLATEAU_TEST_TOKEN: secret });
    const out: BucketRecord[] = [];
    const rec = new BucketRecorder('steps', 'native/0', 0, (r) => out.push(r));
    // the secret straddles character 300 of the message ("other: " and 280 characters before it)
    rec.iterationError(100, `${'x'.repeat(280)}${secret} and more`);
    rec.close(500);
    const [message] = out[0].samples!;
    expect(message).toBe(cutMessage(`other: ${'x'.repeat(280)}${secret}`, 300));
    expect(scrub(JSON.stringify(out[0]))).toContain(`"other: ${'x'.repeat(280)}[redacted]…"`);
    expect(scrub(JSON.stringify(out[0]))).not.toContain('tok-0123');
  });

  it("counts every failure and keeps the messages of a second's first 5", () => {
    const out: BucketRecord[] = [];
    const rec = new BucketRecorder('steps', 'native/0', 0, (r) => out.push(r));
    for (let i = 0; i < 50; i++) rec.iterationError(10 + i, `failure ${i}`);
    rec.close(500);
    expect(out[0].errors.other).toBe(50);
    expect(out[0].samples).toEqual([0, 1, 2, 3, 4].map((i) => `other: failure ${i}`));
  });
});

describe('BucketRecorder: error samples of a mix', () => {
  it("name the entry a one-request arrival ran (a transaction's own message names its send), and a run of one name stays as it was", () => {
    const failed = newOutcome();
    failed.status = 503;
    failed.kind = 'http_5xx';
    failed.times.endMs = 100;
    const samplesOf = (named: boolean) => {
      const out: BucketRecord[] = [];
      const rec = new BucketRecorder('steps', 'native/0', 0, (r) => out.push(r), 0, null, named);
      rec.complete(100, failed, null, 'read order');
      rec.iterationError(150, 'scenario threw: no row', 'create order');
      if (named)
        rec.transaction(200, 'checkout', 5, { kind: 'http_5xx', status: 503, message: 'checkout: confirm: HTTP 503' });
      rec.close(500);
      return out[0].samples;
    };
    expect(samplesOf(true)).toEqual([
      'http_5xx: read order: HTTP 503',
      'other: create order: scenario threw: no row',
      'http_5xx: checkout: confirm: HTTP 503',
    ]);
    expect(samplesOf(false)).toEqual(['http_5xx: HTTP 503', 'other: scenario threw: no row']);
  });
});

describe('BucketRecorder: a response failed by its status (finding A5)', () => {
  const failed = (status: number, body: string) => {
    const o = newOutcome();
    o.status = status;
    o.kind = status >= 500 ? 'http_5xx' : 'http_4xx';
    o.bodyChunks = [Buffer.from(body)];
    o.bytesIn = Buffer.byteLength(body);
    return o;
  };

  it("keeps the check's message and the start of the body, running the check only for a sample the second keeps", () => {
    const out: BucketRecord[] = [];
    const rec = new BucketRecorder('steps', 'native/0', 0, (r) => out.push(r), 0, null, true);
    let checks = 0;
    const check = (o: Outcome) => (checks++, `login ${o.status}`);
    rec.complete(100, failed(401, '{"error":"bad credentials"}'), null, 'login', check);
    rec.complete(110, failed(401, '{"error":"no token"}'), null, 'item', () => null);
    for (let i = 0; i < 1000; i++)
      rec.complete(120, failed(401, `{"error":"bad credentials","id":${i}}`), null, 'login', check);
    rec.complete(130, failed(503, 'overloaded'), null, 'order');
    rec.close(500);
    expect(out[0].samples).toEqual([
      'http_4xx: login: HTTP 401 (check: login 401); body: {"error":"bad credentials"}',
      'http_4xx: item: HTTP 401; body: {"error":"no token"}',
      'http_4xx: login: HTTP 401 (check: login 401); body: {"error":"bad credentials","id":0}',
      'http_4xx: login: HTTP 401 (check: login 401); body: {"error":"bad credentials","id":1}',
      'http_5xx: order: HTTP 503; body: overloaded',
    ]);
    expect(out[0].errors).toEqual({ http_4xx: 1002, http_5xx: 1 });
    // run for the first and for 3 of the 1000 (while the second had room), not once per failed request
    expect(checks).toBe(4);
  });
});

describe('BucketRecorder: arrivals that sent nothing', () => {
  it('a one-request run counts its requests apart once an arrival failed before sending, so the server cross-check compares requests', () => {
    const out: BucketRecord[] = [];
    const rec = new BucketRecorder('steps', 'native/0', 0, (r) => out.push(r));
    const o = newOutcome();
    o.status = 200;
    o.times.endMs = 100;
    rec.complete(100, o, null);
    rec.complete(150, o, null);
    rec.iterationError(200, 'request(ctx) threw: no row');
    rec.tick(1100);
    rec.close(1200);
    expect([out[0].completed, out[0].ok, out[0].requests]).toEqual([3, 2, 2]);
    // a second with no such arrival keeps requests = completed implicit, as before
    expect(out.slice(1).every((r) => r.requests === undefined)).toBe(true);
  });
});

describe('BucketRecorder and the rejections the scenario left unhandled', () => {
  it('counts them in their second with the first message, notes it among the samples, and changes no arrival count', () => {
    const out: BucketRecord[] = [];
    const rec = new BucketRecorder('steps', 'native/0', 0, (r) => out.push(r));
    rec.arrival(100, 0);
    rec.unhandled(300, 'stray at seq 10');
    rec.unhandled(700, 'stray at seq 20');
    rec.tick(1_200);
    rec.unhandled(1_500, 'stray at seq 30');
    rec.close(1_900);
    rec.unhandled(2_100, 'after close: dropped');
    expect(out.map((r) => [r.tS, r.unhandled])).toEqual([
      [0, { count: 2, first: 'stray at seq 10' }],
      [1, { count: 1, first: 'stray at seq 30' }],
    ]);
    expect(out[0].samples).toEqual([
      "unhandled, no arrival failed: a promise the scenario's code left unhandled rejected: stray at seq 10",
    ]);
    expect(out.map((r) => [r.started, r.completed, r.ok, r.errors])).toEqual([
      [1, 0, 0, {}],
      [0, 0, 0, {}],
    ]);
  });
});
