/** `plateau plan`: everything the run will do, before it sends anything. */
import type { PlateauConfig } from '../config/schema.ts';
import type { Plan } from '../../analysis/plan.ts';
import { trustworthyPercentiles } from '../../analysis/percentiles.ts';
import { warmupRatePerSec } from '../pipeline/warmup.ts';
import { engineKind } from '../engine/create.ts';

export function planText(config: PlateauConfig, plan: Plan, scenario?: string): string {
  const w = config.warmup;
  const lines = [
    `target   ${plan.target}`,
    `scenario ${scenario ?? `GET ${plan.target} (no scenario module)`}`,
    `stages   preflight -> reset -> rtt -> warmup -> ${plan.steps.length} steps -> report`,
    `reset    ${config.reset.hooks.length ? config.reset.hooks.map((h) => (h.kind === 'command' ? `command \`${h.run}\`` : h.kind === 'http' ? `${h.method} ${h.url}` : `sql on ${h.database} (${h.statements.length} statements, tables ${h.guard.tables.join(', ')})`)).join('; ') : 'none configured'}`,
    `warmup   ${w.enabled ? `${warmupRatePerSec({ config })} req/s until stable over ${w.stableWindows} windows of ${w.windowS} s (±${w.tolerance * 100}%), at most ${w.maxS} s` : 'disabled'}`,
    `steps    ${config.steps.rampS} s ramp + ${config.steps.holdS} s hold each; judged on the last ${config.steps.holdS - plan.settleS} s of the hold (settle ${plan.settleS} s)`,
    `rule     a step holds when delivery >= ${plan.rules.deliveryMin} and capture >= ${plan.rules.captureMin}; the run stops at the first that does not`,
    ...engineKind(config).planLines(),
    `VUs      ${plan.vus.preAllocatedVUs} preallocated, max ${plan.vus.maxVUs} (${plan.vus.reason}; re-sized with the measured RTT before load)`,
    '',
    'step  rate/s  ramp from  steady window   expected samples  trustworthy percentiles',
  ];
  plan.steps.forEach((s, i) => {
    const trust = trustworthyPercentiles(plan.expectedSteadySamples[i], plan.rules.minTailSamples);
    const ok = trust.filter((t) => t.trusted).map((t) => `p${t.q}`).join(' ') || 'none';
    const not = trust.filter((t) => !t.trusted).map((t) => `p${t.q} needs ${t.requiredSamples}`).join(', ');
    lines.push(`${String(i + 1).padStart(4)}  ${String(s.ratePerSec).padStart(6)}  ${String(s.rampStartS).padStart(7)} s  ${`${s.steadyStartS}-${s.steadyEndS} s`.padEnd(14)}  ${String(plan.expectedSteadySamples[i]).padStart(16)}  ${ok}${not ? ` (${not})` : ''}`);
  });
  const last = plan.steps.at(-1)?.ratePerSec;
  if (last !== undefined && last < config.steps.maxPerSec - 1e-9) {
    lines.push(`note: the last step is ${last} req/s: maxPerSec ${config.steps.maxPerSec} is not startPerSec ${config.steps.startPerSec} plus a whole number of stepPerSec ${config.steps.stepPerSec}`);
  }
  const totalS = plan.durationS + (w.enabled ? w.maxS + 1 : 0);
  lines.push('', `at most ${fmtDuration(totalS)} of load (${fmtDuration(plan.durationS)} of steps${w.enabled ? ` + warmup up to ${w.maxS} s` : ''}); the run stops earlier at the plateau.`);
  return lines.join('\n');
}

function fmtDuration(s: number): string {
  return s >= 60 ? `${Math.floor(s / 60)} min ${Math.round(s % 60)} s` : `${Math.round(s)} s`;
}
