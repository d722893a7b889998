/**
 * What the report's terms mean, for report.md and report.html alike (each escapes them): the
 * thresholds are the run's own rules, the unit its traffic's. Pure.
 */
import { fmtRatio } from '../analysis/format.ts';
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

export function howToReadTerms(run: RunResult): Term[] {
  const { deliveryMin, captureMin } = run.rules;
  const unit = rateUnit(run);
  return [
    {
      term: 'Delivery',
      meaning: `successful ${unit} achieved ÷ ${unit} offered, over the steady window; a step needs ≥ ${fmtRatio(deliveryMin)}.`,
    },
    {
      term: 'Capture',
      meaning: `throughput gained ÷ rate added since the previous step, whose throughput counts at most its offered rate (a window that drained a backlog did not sustain its surge); below ${fmtRatio(captureMin)} throughput has stopped following the offered rate.`,
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
      meaning: `carry their sample count (n); \`~value*\` marks one that rests on too few samples to trust.${
        unit === 'arrivals/s'
          ? ' The percentiles of a step are of its requests (each request of a transaction counts), where its rates count arrivals; the table by name gives each transaction its whole duration.'
          : ''
      }`,
    },
  ];
}
