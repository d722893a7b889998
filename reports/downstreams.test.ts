import { describe, expect, it } from 'vitest';
import { analyzeRun } from '../analysis/analyze.ts';
import { buildInput, fakeRun } from '../analysis/testing/builders.ts';
import type { DownstreamConfig, PromqlWindow, RunResult, ServerWindow, Symptom } from '../analysis/types.ts';
import { downstreamWarningText } from './downstream-warning-text.ts';
import { renderHtml } from './html.ts';
import { renderMarkdown } from './markdown.ts';
import { warningTexts } from './warning-text.ts';

const STEPS = [{ ratePerSec: 100 }, { ratePerSec: 200 }, { ratePerSec: 300 }, { ratePerSec: 400, okPerSec: 300 }];
const window: ServerWindow = {
  source: 'promql',
  fromS: 0,
  toS: 1,
  throughputPerSec: null,
  meanMs: null,
  maxMs: null,
  poolActiveMax: null,
  poolPendingMax: null,
  poolMax: null,
};

/** A run whose `redis<b>` serves 16 ops per request on two shards, one hot, and is blocked past the knee. */
function runWith(declared: DownstreamConfig[], opsPerRequest: number[] = [16, 16, 16, 16]): RunResult {
  const input = buildInput({ steps: STEPS });
  const promqlWindows: PromqlWindow[] = input.steps.map((p, i) => {
    const ok = Math.min(p.ratePerSec, 300);
    const ops = ok * opsPerRequest[i] * 10;
    return {
      index: i,
      attempt: 1,
      window,
      downstreams: {
        'redis<b>': {
          source: 'promql',
          fromS: p.steadyStartS,
          toS: p.steadyStartS + 10,
          ops,
          byLabel: { 'shard-a': ops * 0.8, 'shard-b': ops * 0.2 },
          saturationStart: 0,
          saturationMax: i === 3 ? 41 : 0,
          problems: i === 0 ? ['downstream redis<b>: a problem <i>'] : [],
        },
      },
    };
  });
  return analyzeRun({ ...input, promqlWindows, serverConfig: { downstreams: declared } });
}

const REDIS: DownstreamConfig = {
  name: 'redis<b>',
  ops: 'redis_commands_processed_total',
  splitBy: 'shard',
  saturation: 'redis_blocked_clients',
};

describe('the Downstreams section', () => {
  const run = runWith([REDIS]);
  const md = renderMarkdown(run);

  it('gives the verdict with its arithmetic, and per step ops/s, ops per request and shares', () => {
    expect(run.downstreamVerdict?.limiting).toBe('redis<b>');
    const section = md.slice(md.indexOf('## Downstreams'), md.indexOf('\n## ', md.indexOf('## Downstreams') + 1));
    expect(section).toMatch(
      /\*\*Limiting downstream\*\*: redis&lt;b>: 4,800 ops\/s from step 3 = 300\.0 req\/s x 16\.0 ops per request, its redis\\_blocked\\_clients up from 0 to 41 at step 4: at this fan-out redis&lt;b>'s ceiling is the service's; fewer round trips per request raise it\.$/m,
    );
    const rows = section
      .split('\n')
      .filter((l) => l.startsWith('| ') && !l.startsWith('| Step') && !l.startsWith('| -'));
    expect(rows).toHaveLength(4);
    expect(rows[0]).toMatch(/\| 1 \| .*\| 1,600 \| 16\.0 \| 0 -> 0 \| – \| shard-a 80%, shard-b 20% \|/);
    expect(section).toMatch(/a problem/);
  });

  it('the HTML page has the same section, every string escaped', () => {
    const html = renderHtml(run, []);
    expect(html).toContain('<section id="downstreams">');
    expect(html).toContain('<a href="#downstreams">Downstreams</a>');
    expect(html).toContain('<strong>Limiting downstream</strong>: redis&lt;b&gt;: 4,800 ops/s from step 3');
    expect(html).not.toContain('<i>');
  });

  it('the hot shard and a moving fan-out are worded with the step, the figures and what to do', () => {
    const moving = runWith([REDIS], [16, 16, 20, 16]);
    const texts = warningTexts(moving).filter((t) => t.startsWith('redis<b>'));
    expect(texts).toEqual([
      expect.stringMatching(
        /^redis<b>: ops per request moved from 16\.0 at step 1 to 20\.0 at step 3, more than 15% between holding steps .*; warm the target longer, or find what changed the calls per request$/,
      ),
      expect.stringMatching(
        /^redis<b>: at step \d, shard shard-a carried 80% of the ops, 1\.6x the mean of its 2 values \(over 1\.5x\): a hot shard; spread the keys/,
      ),
    ]);
  });

  it("a fan-out that fell as a constant background makes it: the line, and the service's own calls per request", () => {
    const w: Symptom = {
      code: 'downstream-fan-out',
      step: 1,
      figures: {
        name: 'redis',
        fromStep: 0,
        fromOpsPerRequest: 3.1,
        toOpsPerRequest: 2.59,
        changeShare: 0.15,
        backgroundOpsPerSec: 6.5,
        opsPerRequest: 2.45,
        fitSteps: [0, 1, 2],
      },
    };
    expect(downstreamWarningText(w)).toBe(
      "redis: ops per request fell from 3.10 at step 1 to 2.59 at step 2 as the rate rose, as ops redis does besides the service's requests make it (an exporter's own commands on each scrape, other clients): over the held steps 1-3 its ops/s = 6.5 + 2.45 x req/s, so the service's own calls are about 2.45 per request and the Ops per request column counts the 6.5 ops/s too; where nothing else calls redis, a cache warming or another code path would be the cause instead",
    );
  });

  it('nothing at all for a run without downstreams', () => {
    const plain = fakeRun({ steps: STEPS });
    expect(renderMarkdown(plain)).not.toMatch(/Downstream/);
    expect(renderHtml(plain, [])).not.toMatch(/downstreams/);
  });
});
