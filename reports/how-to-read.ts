/**
 * What the report's terms mean, for report.md and report.html alike (each escapes them): the
 * thresholds are the run's own rules, the unit its traffic's. Pure.
 */
import { fmtRatio, stepList } from '../analysis/format.ts';
import type { RunResult } from '../analysis/types.ts';
import { rateUnit } from './cells.ts';

export interface Term {
  term: string;
  /** Follows the term after a colon, or after a space where `inSentence` (the term is its subject). */
  meaning: string;
  inSentence?: boolean;
}

/** The term and its meaning joined, as plain text; `bold` wraps the term (each renderer's own markup). */
export function termText(t: Term, bold: (term: string) => string): string {
  return `${bold(t.term)}${t.inSentence ? ' ' : ': '}${t.meaning}`;
}

/**
 * A sentence for a run where some step's capture is below 0 (a table's `-0.01` reads like a bug):
 * the value is kept as measured, and said to be throughput falling as the rate rose. Empty otherwise.
 */
function negativeCapture(run: RunResult): string {
  const below = run.steps.filter((s) => s.capture !== null && s.capture < 0).map((s) => s.index);
  if (below.length === 0) return '';
  const steps = new Set(below).size === 1 ? 'step' : 'steps';
  return ` A capture below 0 (${steps} ${stepList(below)}) is kept as measured: throughput fell as the offered rate rose, a sign of overload past the knee.`;
}

export function howToReadTerms(run: RunResult): Term[] {
  const { deliveryMin, captureMin } = run.rules;
  const unit = rateUnit(run);
  return [
    {
      term: 'Delivery',
      meaning: `successful ${unit} achieved ÷ ${unit} offered, over the steady window; a step needs ≥ ${fmtRatio(deliveryMin)}${run.rules.mix ? `, and each entry of the mix offered 100 arrivals or more in the window its completions ≥ ${fmtRatio(deliveryMin)} of its share` : ''}.`,
    },
    {
      term: 'Capture',
      meaning: `throughput gained ÷ rate added since the previous step, whose throughput counts at most its offered rate (a window that drained a backlog did not sustain its surge); below ${fmtRatio(captureMin)} throughput has stopped following the offered rate.${negativeCapture(run)}`,
    },
    {
      term: 'Steady window',
      meaning: 'the hold minus its settle time; only these seconds are judged, never the ramp or a whole-run average.',
    },
    {
      term: 'Dropped iterations',
      meaning:
        "arrivals that found no free VU, counted against delivery: the generator's limit while the target's latency stayed low, the target's when its latency grew so far that every VU sat waiting on it (Little's law: VUs in use = throughput × time per request); the verdict and the warnings say which.",
    },
    {
      term: 'Percentiles',
      inSentence: true,
      meaning: `carry their sample count (n); \`~value*\` marks one that rests on too few samples to trust. They are of successful requests only: a failed one counts in the errors, never in the latency (under k6, \`http_req_duration{expected_response:true}\`, not the plain \`http_req_duration\`: a 2xx that a check rejected stays in it).${
        unit === 'arrivals/s'
          ? ' The percentiles of a step are of its requests (each request of a transaction counts), where its rates count arrivals; the table by name gives each transaction its whole duration.'
          : ''
      }`,
    },
  ];
}
