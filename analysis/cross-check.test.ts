import { describe, expect, it } from 'vitest';
import { serverSampleOf, serverWindowOf } from './testing/builders.ts';
import { crossCheck, serverRttMs } from './cross-check.ts';
import { serverWindow } from './server-window.ts';

const sample = serverSampleOf;
const window = serverWindowOf;

// a fresh-clone CI beside its CPU hog read 84.3 req/s on the server against the client's 80.3 over
// a 4 s window: "traffic-extra" from the window's own edges, each a reading that took its time
describe("the throughput tolerance allows for the edge readings' own time", () => {
  it('a window carries the spread its edge readings leave in its length, none where they carry no time', () => {
    const timed = [sample(10, 1000, 10, { readMs: 200 }), sample(14, 1320, 13.2, { readMs: 160 })];
    expect(serverWindow(timed, 'steps', 10, 14)!.edgeSpreadS).toBeCloseTo(0.18, 9);
    expect(serverWindow([sample(10, 1000, 10), sample(14, 1320, 13.2)], 'steps', 10, 14)).not.toHaveProperty(
      'edgeSpreadS',
    );
  });

  it.each([
    ['edges of no known time: the 5% alone', undefined, 'traffic-extra', /more traffic than this test sent \(another/],
    [
      'edges that took 200 ms each in a 4 s window: 10%',
      0.2,
      'consistent',
      /^server counted 85\.0 req\/s, client 80\.3;/,
    ],
    [
      'edges of 20 ms: 5.5%, and said',
      0.02,
      'traffic-extra',
      /5\.9% more traffic than this test sent \(beyond its 5\.5% tolerance, 5% widened by the time its edge readings took\)/,
    ],
  ])('%s', (_, edgeSpreadS, verdict, detail) => {
    const w = { ...window(85, 20), fromS: 0, toS: 4, ...(edgeSpreadS === undefined ? {} : { edgeSpreadS }) };
    const c = crossCheck(80.3, 20.5, 0.5, w);
    expect(c.verdict, c.detail).toBe(verdict);
    expect(c.detail).toMatch(detail);
  });
});

describe('crossCheck', () => {
  it.each([
    ['consistent', 200, 10.6, 0.5, window(199, 10.0), 'consistent'],
    ['within the 0.5 ms floor', 200, 1.9, 0.5, window(200, 1.0), 'consistent'],
    ['client queueing', 200, 40, 0.5, window(200, 10), 'client-queueing'],
    ['traffic missing', 200, 10, 0.5, window(150, 10), 'traffic-missing'],
    ['traffic extra', 200, 10, 0.5, window(260, 10), 'traffic-extra'],
    ['server between client - RTT and client', 200, 10.4, 0.9, window(200, 10.0), 'consistent'],
    ['server slower than the client saw', 200, 10, 0.5, window(200, 12), 'traffic-extra'],
    ['no data', 200, 10, 0.5, null, 'no-data'],
  ] as const)('%s', (_n, clientX, clientMean, rtt, w, verdict) => {
    const c = crossCheck(clientX, clientMean, rtt, w);
    expect(c.verdict).toBe(verdict);
    expect(c.detail.length).toBeGreaterThan(10);
  });

  it('a consistent one gives the gap and the tolerance it is within, not the tolerance alone', () => {
    // client 10.6 - RTT 0.5 = 10.1 against the server's 10.0: 0.10 ms apart, within max(0.5 ms, 5%?) of it
    expect(crossCheck(200, 10.6, 0.5, window(199, 10.0)).detail).toMatch(
      /\(0\.10 ms apart, within the [\d.]+ ms tolerance\)$/,
    );
  });

  it('names a misread unit when the means differ by about 1,000 x, either way, and not otherwise', () => {
    // a series in milliseconds read as seconds: 5 ms per request reads as 5,000 ms
    const slow = crossCheck(200, 5.5, 0.5, window(200, 5000));
    expect(slow.verdict).toBe('traffic-extra');
    expect(slow.detail).toMatch(
      /about 909 x the client's: a series in milliseconds read as seconds\? set metrics\.requests\.unit: 'milliseconds'\)$/,
    );
    // a series in seconds read as milliseconds: 20 ms reads as 0.02 ms
    const fast = crossCheck(200, 20.5, 0.5, window(200, 0.02));
    expect(fast.verdict).toBe('client-queueing');
    expect(fast.detail).toMatch(
      /about 1\/1,025 of the client's: a series in seconds read as milliseconds\? set metrics\.requests\.unit: 'seconds'\)$/,
    );
    // a real difference of 10 x says nothing of units
    expect(crossCheck(200, 10, 0.5, window(200, 100)).detail).not.toMatch(/unit/);
    expect(crossCheck(200, 40, 0.5, window(200, 10)).detail).not.toMatch(/unit/);
  });

  it("does not compare means when requests failed: the client's mean is of its successes, the server's of every request", () => {
    // half fast 503s at the server: its mean 50.5 ms against the client's 100 ms of successes
    const c = crossCheck(200, 100.5, 0.5, window(200, 50.5), 0.5);
    expect(c.verdict).toBe('consistent');
    expect(c.detail).toMatch(/latency not compared: 50\.0% of requests failed/);
    expect(crossCheck(200, 100.5, 0.5, window(200, 50.5), 0.005).verdict).toBe('client-queueing');
  });

  it('says how much time the generator added', () => {
    expect(crossCheck(200, 40, 0.5, window(200, 10)).detail).toMatch(/29\.50 ms per request is spent in the generator/);
  });
});

// run b2 of an audit: every request of step 6 timed out at the client's 400 ms while the server's
// pool held 184 waiting, and the cross-check blamed a proxy or the label filter
describe("the client's own timeouts: abandoned requests, not missing traffic", () => {
  it('a server that counted none of the requests the client timed out reads client-timeouts, naming the deadline', () => {
    const c = crossCheck(240.3, null, 0.4, window(0.3, 0.449), 1, 'requests', { share: 1, timeoutMs: 400 });
    expect(c.verdict).toBe('client-timeouts');
    expect(c.detail).toBe(
      "server counted 0.3 requests/s, client 240.3 requests/s (every request of every arrival): the client itself gave up on 100% of its requests at its deadline (http.timeoutMs, 400 ms), and the server counts a request when it finishes it, after the window or never (a target may not count one whose client has gone): the 99.9% it did not count lie within those the client abandoned, not traffic that missed the series; the timeouts are the step's failures: if real clients wait longer, raise http.timeoutMs",
    );
    expect(c.detail).not.toMatch(/proxy|label filter/);
  });

  it.each([
    // the server short by no more than the timeouts (10% of 200): 185 counted, 180 answered
    [
      'short by less than the timeouts',
      185,
      0.1,
      'client-timeouts',
      /gave up on 10% of its requests at its deadline \(http\.timeoutMs\)/,
    ],
    // within 5% of the 180 the client did not abandon
    [
      'short of the answered within the tolerance',
      172,
      0.1,
      'client-timeouts',
      /the 14\.0% it did not count lie within/,
    ],
    // short of the answered beyond it: missing traffic, measured against them alone
    [
      'short of the answered too',
      150,
      0.1,
      'traffic-missing',
      /gave up on 10% .*, and of the others 16\.7% never reached the measured series .*label filter/,
    ],
    // no timeouts: as before
    [
      'no timeouts',
      150,
      0,
      'traffic-missing',
      /^server counted 150\.0 req\/s, client 200\.0: 25\.0% of the client's requests never reached/,
    ],
    // within the plain tolerance: consistent, whatever timed out
    ['within 5% of the client', 195, 0.1, 'consistent', /latency not compared/],
    // a server that counted some is never said to have missed all: 0.02 of 200 is 99.99%, not 100.0%
    ['all timed out, a few counted', 0.02, 1, 'client-timeouts', /: the 99\.99% it did not count lie within/],
    [
      'a few answered, fewer counted',
      0.0004,
      0.99,
      'traffic-missing',
      /gave up on 99% .*, and of the others 99\.98% never reached/,
    ],
    ['none timed out, a few counted', 0.02, 0, 'traffic-missing', /: 99\.99% of the client's requests never reached/],
    // a share above none is never said to be none: 1 in 100,000 is 0.001%, not 0.0%
    ['one in 100,000 timed out', 150, 0.00001, 'traffic-missing', /gave up on 0\.001% of its requests/],
  ] as const)('%s', (_n, serverX, share, verdict, detail) => {
    const c = crossCheck(200, 10.5, 0.5, window(serverX, 10), share, 'arrivals', { share });
    expect(c.verdict).toBe(verdict);
    expect(c.detail).toMatch(detail);
  });
});

describe('serverRttMs', () => {
  it('is the fastest round trip, the median in older runs, 0 unmeasured', () => {
    expect(serverRttMs({ httpMinMs: 0.3, httpMedianMs: 0.5 })).toBe(0.3);
    expect(serverRttMs({ httpMedianMs: 0.5 })).toBe(0.5);
    expect(serverRttMs(undefined)).toBe(0);
  });
});
