/**
 * topology.command against a real target and a real shell: the replica count is a file the
 * command cats, and the target itself rewrites it once it has seen a given number of requests, so
 * the change falls inside a known step whatever the machine's speed (the schedule fixes which
 * request lands in which step). A step whose readings change is contaminated and rerun once; a
 * command that fails, prints something other than a number, or hangs is refused before any load
 * with its reason and the fix, and one that starts failing mid-run is said on the steps' line.
 *
 * Steps of 3 s at 40, 80, 120 req/s, no warmup: step 1 is requests 1..120 (and preflight's sample),
 * step 2 is 121..360, so the 241st arrives about 1.5 s into step 2, between its first edge reading
 * (3 replicas) and its last (4). Those edge readings are taken on the second and land a moment
 * after it: the one that stands for a window's end edge is read with that window.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { analyzeStore } from '../harness/report.ts';
import { TOPOLOGY_COMMAND_FIX } from '../harness/metrics/topology-command.ts';
import { runQuietly, tempRunsDir } from './helpers/pipeline.ts';
import { tinyServer } from './helpers/tiny-server.ts';

const runsDir = tempRunsDir();
const replicas = path.join(runsDir, 'replicas');
const marker = path.join(runsDir, 'apiserver-down');
/** The target's requests under load, and the one at which it acts (rewrites the count, or makes the command fail). */
let seen = 0;
let actAt = Infinity;
let act: () => void = () => {};

const target = await tinyServer((req, res) => {
  if (req.url === '/load' && ++seen === actAt) act();
  res.end('ok');
});
afterAll(async () => {
  await target.close();
  fs.rmSync(runsDir, { recursive: true, force: true });
});
beforeEach(() => {
  seen = 0;
  actAt = Infinity;
  fs.writeFileSync(replicas, '3\n');
  fs.rmSync(marker, { force: true });
});

/** maxPerSec 40 or 80 where later steps add nothing to what a case shows: every run is seconds of the suite's five minutes. */
const config = (runId: string, command: string, maxPerSec = 120) => ({
  target: { url: `${target.url}/load`, healthPath: '/health' },
  steps: { startPerSec: 40, stepPerSec: 40, maxPerSec, rampS: 0, holdS: 3, settleS: 1 },
  warmup: { enabled: false },
  rtt: { samples: 3 },
  topology: { command, everyS: 1 },
  output: { dir: runsDir, runId },
});

describe('topology.command', () => {
  // request 1 is preflight's sample; step 1 sends 2..121, so its 101st arrives about 2.5 s into its
  // 3 s: after the reading at 2 s, before the one taken at its end edge (3 s, landing a moment later).
  // A change inside a step's window (step 2's, at its 241st request) is the next case's first attempt.
  it("a replica count changed in step 1's last second, after its last reading inside the window, is read at its end edge: rerun once, said so in the report", async () => {
    const stepNo = 1;
    actAt = 101;
    act = () => fs.writeFileSync(replicas, '4\n');
    const r = await runQuietly(config('changed-101', `cat ${replicas}`, 40));
    expect(r.error?.message ?? null).toBeNull();
    const { result } = analyzeStore(r.dir);
    const atStep = result.steps.filter((s) => s.index === stepNo - 1);
    expect(
      atStep.map((s) => [s.attempt ?? 1, s.contaminated === true]),
      JSON.stringify(atStep),
    ).toEqual([
      [1, true],
      [2, false],
    ]);
    expect(atStep[0]!.topologyValues).toEqual([3, 4]);
    expect(result.steps.filter((s) => s.contaminated).map((s) => s.index)).toEqual([stepNo - 1]);
    const md = fs.readFileSync(path.join(r.dir, 'report.md'), 'utf8');
    expect(md).toMatch(new RegExp(`^\\| ${stepNo} \\| ${40 * stepNo} \\| .* \\| holds \\(contaminated\\) \\|$`, 'm'));
    expect(md).toContain('topology changed during the step (3 -> 4)');
    // the rerun reads 4: one system (a count differing between deciding steps is
    // warned of: analysis/topology-across.test.ts), and the capacity line says which it was read at
    expect(result.steps.filter((s) => !s.contaminated).map((s) => s.topology)).toEqual([4]);
    expect(result.warnings.filter((w) => w.code === 'topology-across-steps')).toEqual([]);
    expect(md).toMatch(
      /\*\*Capacity: at least 40\.0 req\/s \(.*measured at a topology of 4, the probe's reading at step 1\)\*\*/,
    );
  });

  it('a change inside step 2 contaminates it, and a step whose rerun is contaminated too stops the run: the topology never held still, no capacity', async () => {
    // step 2's first attempt is requests 122..361, its rerun 362..601: the count moves in both
    actAt = 241;
    act = () => {
      fs.writeFileSync(replicas, '4\n');
      actAt = 481;
      act = () => fs.writeFileSync(replicas, '5\n');
    };
    const r = await runQuietly(config('changed-twice', `cat ${replicas}`));
    expect(r.error?.message ?? null).toBeNull();
    const { result } = analyzeStore(r.dir);
    expect(result.steps.map((s) => [s.index, s.attempt ?? 1, s.contaminated === true])).toEqual([
      [0, 1, false],
      [1, 1, true],
      [1, 2, true],
    ]);
    expect(result.steps[1]!.topologyValues).toEqual([3, 4]);
    expect(fs.readFileSync(path.join(r.dir, 'report.md'), 'utf8')).toContain(
      'topology changed during the step (3 -> 4)',
    );
    expect([result.stopReason, result.capacityPerSec, result.heldAtLeastPerSec]).toEqual([
      'topology-unsteady',
      null,
      40,
    ]);
    expect(result.stages.find((s) => s.name === 'steps')!.detail).toBe(
      '2 of 3 steps run; step 2 (80 req/s): the topology changed during every attempt at it',
    );
    expect(fs.readFileSync(path.join(r.dir, 'report.md'), 'utf8')).toContain(
      '**Capacity: not established (at least 40.0 req/s held; the topology changed during every attempt at step 2: it never held still)**',
    );
    expect(result.stopDetail).toMatch(
      /^step 2 \(80 req\/s\): the topology changed during every attempt at its rate \(3 -> 4, then 4 -> 5\): it never held still .*pin the replica count for the test/,
    );
  });

  it.each([
    ['prints something else', `echo 'replicas: three'`, /printed "replicas: three", not one number >= 0$/],
    ['prints nothing', 'true', /printed nothing, not one number >= 0$/],
    ['fails', `echo 'no such deployment' >&2; exit 3`, /exited 3; stderr: "no such deployment"$/],
    ['hangs', 'sleep 30', /did not finish within 5 s \(killed\)$/],
  ])('a command that %s is refused before any load, with its reason and the fix', async (_what, command, why) => {
    const r = await runQuietly(config(`refused-${_what.replace(/ /g, '-')}`, command));
    expect(r.exitCode).toBe(3);
    expect(r.error?.message).toMatch(/^topology\.command cannot be read: `/);
    expect(r.error?.message).toMatch(why);
    expect(r.error?.hint).toBe(TOPOLOGY_COMMAND_FIX);
    expect(r.result.stages.find((s) => s.name === 'preflight')!.status).toBe('fail');
    expect(seen).toBe(0);
  });

  it('a command that starts failing mid-run loses no step and is named on the steps line', async () => {
    actAt = 60; // half-way through step 1
    act = () => fs.writeFileSync(marker, '');
    const r = await runQuietly(
      config(
        'failing',
        `if [ -e ${marker} ]; then echo 'kube-apiserver unreachable' >&2; exit 1; fi; cat ${replicas}`,
        80,
      ),
    );
    expect(r.error?.message ?? null).toBeNull();
    const { result } = analyzeStore(r.dir);
    expect(result.steps.map((s) => [s.ratePerSec, s.verdict])).toEqual([
      [40, 'holds'],
      [80, 'holds'],
    ]);
    const steps = result.stages.find((s) => s.name === 'steps')!;
    expect(steps.detail).toMatch(
      /^all 2 steps held; topology\.command gave no number at \d+ readings \(last: `.*` exited 1; stderr: "kube-apiserver unreachable"\): a change of topology at those times could not be seen$/,
    );
    expect(fs.readFileSync(path.join(r.dir, 'report.md'), 'utf8')).toContain('topology.command gave no number at');
  });
});
