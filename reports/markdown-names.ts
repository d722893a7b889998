/**
 * The traffic mix and the figures by name in report.md (text from names-text.ts, escaped for
 * Markdown): the mix near the top, and after the steps a table by name for every step.
 */
import type { RunResult } from '../analysis/types.ts';
import { mdCell } from './escape.ts';
import { mdTable } from './markdown-steps.ts';
import { mdSection } from './markdown-verdicts.ts';
import {
  anyNameUnreliable,
  NAME_HEADER,
  nameNote,
  namedSteps,
  nameRows,
  namesKneeSentence,
  nameStepTitle,
  nameUnreliableNote,
  trafficText,
} from './names-text.ts';

/** The mix the run offered and what sized its VUs; nothing when the run did not record its traffic. */
export function trafficSection(run: RunResult): string[] {
  return mdSection(trafficText(run));
}

/** Per step, a table by name (requests and transactions), and the entry that degraded first; nothing without names. */
export function namesSection(run: RunResult): string[] {
  const steps = namedSteps(run);
  if (steps.length === 0) return [];
  const out = ['## Steps by name', '', mdCell(nameNote(run))];
  const finding = namesKneeSentence(run);
  if (finding !== null) out.push('', `**${mdCell(finding)}**`);
  for (const s of steps)
    out.push('', `### ${mdCell(nameStepTitle(s, run.rules.rateUnit))}`, '', ...mdTable(NAME_HEADER, nameRows(run, s)));
  if (anyNameUnreliable(run)) out.push('', mdCell(nameUnreliableNote(run)));
  return out;
}
