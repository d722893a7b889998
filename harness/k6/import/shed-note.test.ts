/**
 * A k6 run whose responseCallback marked its 503s expected (load shedding "by design"): the
 * import counts them failed all the same and says so, where k6's verdict had read them as served
 * (0.00% errors, "at least 180 req/s held, raise the top rate").
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importK6 } from './import.ts';

const FIX = 'test/fixtures/k6';
const runsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-shed-'));
afterAll(() => fs.rmSync(runsDir, { recursive: true, force: true }));

describe('plateau import k6 of 503s marked expected', () => {
  it('the real stepped-reject output, its 503s set expected: judged as the file k6 wrote, and said', async () => {
    const text = fs.readFileSync(`${FIX}/stepped-reject.ndjson`, 'utf8');
    const file = path.join(runsDir, 'reject-expected.ndjson');
    fs.writeFileSync(file, text.replaceAll('"expected_response":"false"', '"expected_response":"true"'));
    const [as, expected] = await Promise.all([
      importK6({ file: `${FIX}/stepped-reject.ndjson`, outDir: runsDir, steps: {} }),
      importK6({ file, outDir: runsDir, steps: {} }),
    ]);
    const figures = (r: typeof as) => ({
      stop: r.result.stopReason,
      capacity: r.result.capacityPerSec,
      steps: r.result.steps.map((s) => [s.throughputPerSec, s.errorRate, s.verdict]),
    });
    expect(figures(expected)).toEqual(figures(as));
    expect(figures(as)).toMatchObject({ stop: 'unconfirmed', capacity: null });
    expect(figures(as).steps.map(([x]) => x)).toEqual([60, 120, 151.33333333333334]);
    expect(expected.notes).toContain(
      "reject-expected.ndjson: 182 requests that k6 counted as expected (the script's responseCallback) got 503 x 182: counted failed, as a 5xx, a 429 or no answer is a request the service did not serve, and served fast it would read as capacity; k6's http_req_failed leaves them out, so its error rate reads lower than the report's",
    );
    expect(as.notes.some((n) => n.includes('counted as expected'))).toBe(false);
  });
});
