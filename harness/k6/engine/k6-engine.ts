/**
 * The k6 engine behind the LoadEngine interface: start(leg) runs one k6 process for that leg of
 * the plan (the whole plan, or a rerun from its step), its files under runs/<id>/k6/leg-<startS>/,
 * its buckets shifted to the leg's place on the run's timeline, and k6's version and exit
 * recorded in run.json. Once a leg's k6 has exited, its files are scrubbed of secrets
 * (scrub-files.ts) before the leg is done. No native thread or VU pool exists beside it: k6 is the
 * generator.
 */
import path from 'node:path';
import type { PlateauConfig } from '../../config/schema.ts';
import type { Plan } from '../../../analysis/plan.ts';
import type { Scenario } from '../../scenario/types.ts';
import type { RunStore } from '../../store/run-store.ts';
import type { LegOptions, LoadEngine } from '../../engine/load-engine.ts';
import type { Preconnected } from '../../engine/vu-pool.ts';
import { startK6, type K6EngineRun } from './process.ts';
import { K6_TRAITS } from './kind.ts';
import { scrubFiles } from './scrub-files.ts';

export interface K6EngineInput {
  config: PlateauConfig;
  /** The plan of this instance: its VU sizing is the floor of every leg's. */
  plan: Pick<Plan, 'vus'>;
  scenario: Scenario;
  runId: string;
  /** The key of the run's ids (environment.ts runIds): every leg's script builds ids from it. */
  idKey: string;
  /** k6's environment: the one the preflight checked (secrets included). */
  env: NodeJS.ProcessEnv;
  /** Where the legs' files go (dir), where k6's version and exit are recorded (run.json), and the scrubber its files pass through. */
  store: Pick<RunStore, 'dir' | 'meta' | 'update' | 'scrub'>;
  note(line: string): void;
}

export class K6Engine implements LoadEngine {
  readonly name = 'k6';
  readonly label = 'k6';
  /** One k6 process writes every second's samples: a second is complete with one bucket. */
  readonly instances = 1;
  readonly capabilities = K6_TRAITS.capabilities;
  readonly whyNot = K6_TRAITS.whyNot;
  /** The next leg's maxVUs (the steps stage raises it for a rerun when arrivals were dropped for want of VUs). */
  maxVUs: number;
  private live: K6EngineRun | null = null;

  constructor(private readonly o: K6EngineInput) {
    this.maxVUs = o.plan.vus.maxVUs;
  }

  /** k6 ignores t0Ms (its own clock starts with its process) and gracefulStopMs (config.gracefulStopS is in the script). */
  start(leg: LegOptions): K6EngineRun {
    const { o } = this;
    const offsetS = Math.floor(leg.offsetS ?? 0);
    const vus = { ...o.plan.vus, maxVUs: Math.max(o.plan.vus.maxVUs, this.maxVUs) };
    const dir = path.join(o.store.dir, 'k6', `leg-${offsetS}`);
    const started = startK6({
      config: o.config,
      plan: { segments: leg.segments, vus },
      scenario: o.scenario,
      runId: o.runId,
      idKey: o.idKey,
      dir,
      phase: leg.phase,
      seqOffset: leg.seqOffset,
      env: o.env,
      sink: (r) => leg.sink(offsetS ? { ...r, tS: r.tS + offsetS } : r),
      note: o.note,
    });
    // k6's own files are scrubbed once it has exited, whichever way, before the leg counts as done
    const run: K6EngineRun = { ...started, done: started.done.finally(() => this.scrubLeg(dir)) };
    this.live = run;
    run.done
      .then(
        ({ exit }) => {
          o.store.update({
            environment: {
              ...o.store.meta.environment,
              k6: exit.binary.version,
              k6Path: exit.binary.path,
              k6Exit: exit.meaning,
            },
          });
        },
        () => undefined,
      )
      .finally(() => {
        if (this.live === run) this.live = null;
      });
    return run;
  }

  /** A file it could not read whole (a gzip cut short by a killed k6) is left as k6 wrote it, and said so. */
  private async scrubLeg(dir: string): Promise<void> {
    for (const r of await scrubFiles(dir, this.o.store.scrub)) {
      if ('error' in r) this.o.note(`${r.file} was left as k6 wrote it, not scrubbed of secrets: ${r.error}`);
    }
  }

  /** Nothing to open: k6 connects its own VUs (capabilities.preconnect is false, so the pipeline does not ask). */
  async preconnect(): Promise<Preconnected> {
    return { ready: 0, failed: 0 };
  }

  /** k6 allocates the preAllocatedVUs of its script (capabilities.warmup is false, so nothing re-sizes them). */
  reserve(): void {}

  /** k6 sizes its own goroutines (capabilities.threadSizing is false). */
  async shrink(): Promise<void> {}

  /** A k6 still running (a stage that threw mid-leg) is stopped and awaited, so no load outlives the run. */
  async close(): Promise<void> {
    const run = this.live;
    if (!run) return;
    run.stop(0);
    await run.done.catch(() => undefined);
  }
}
