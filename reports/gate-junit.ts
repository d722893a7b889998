/**
 * The gate's decision as JUnit XML, which every CI shows as a test result: "run can be judged"
 * (an error when it cannot), "capacity vs baseline" (a failure on regression), "settings compared
 * with the baseline" (never a failure: a warning when a setting differs) and, when the run was
 * judged (pass or regression) and the runs recorded names, "names at equal rates" (never a
 * failure, since the exit code stays about capacity: a warning when a name regressed) and "names
 * not compared (only in one run)" (skipped, listing the names added or removed, when there are
 * any). Pure.
 *
 * JUnit has no warning: a warning is a skipped case (docs/decisions/054), the one state besides a
 * pass that CI viewers count and list without failing the check (a failure turns a Jenkins build
 * unstable and a GitHub check run red), its message opening with WARNING and saying it is no skip,
 * and every warning in the element's text too (GitLab shows that text as the reason, not the
 * message attribute).
 */
import { warningsBesideReasons, type GateDecision } from '../analysis/gate/decide.ts';
import { cleanBillText, GATE_LABELS, skipText, unconfirmedText } from '../analysis/compare/name-warnings.ts';
import type { RateUnit } from '../analysis/types.ts';

/** Text safe in XML content and attributes; characters XML 1.0 forbids are dropped. */
export function xmlEscape(s: string): string {
  return s
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

interface Case {
  name: string;
  failure?: string;
  error?: string;
  /** Skipped with this message, and `skippedText` (else the message) as its reason. */
  skipped?: string;
  skippedText?: string;
  out?: string;
}

/** How a warning's skipped case opens: read in a list of skips, it says it is none (decision 054). */
export const WARNING_NOT_SKIPPED =
  'WARNING (not a skip: JUnit has no warning, so it is marked skipped; the exit code judges capacity alone)';

/** A warning's case: skipped, its message the count and the first, its reason and output every one. */
function warningCase(name: string, count: string, warnings: readonly string[], more: readonly string[] = []): Case {
  const every = warnings.map((w) => `WARNING: ${w}`);
  return {
    name,
    skipped: `${WARNING_NOT_SKIPPED}: ${count}: ${warnings[0]}`,
    skippedText: [WARNING_NOT_SKIPPED, ...every].join('\n'),
    out: [...every, ...more].join('\n'),
  };
}

function caseXml(c: Case): string {
  const inner = [
    c.failure !== undefined
      ? `<failure message="${xmlEscape(c.failure)}" type="regression">${xmlEscape(c.failure)}</failure>`
      : '',
    c.error !== undefined
      ? `<error message="${xmlEscape(c.error)}" type="cannot-judge">${xmlEscape(c.error)}</error>`
      : '',
    c.skipped !== undefined
      ? `<skipped message="${xmlEscape(c.skipped)}">${xmlEscape(c.skippedText ?? c.skipped)}</skipped>`
      : '',
    c.out !== undefined ? `<system-out>${xmlEscape(c.out)}</system-out>` : '',
  ].join('');
  return `    <testcase classname="plateau.gate" name="${xmlEscape(c.name)}" time="0">${inner}</testcase>`;
}

/**
 * The settings against the baseline: passing with "no differences"; a difference is a warning
 * (warningCase: the exit code stays about capacity), never a pass said to match. A difference that
 * is why the run cannot be judged is the error above, not repeated here.
 */
function settingsCase(d: GateDecision): Case {
  const warnings = warningsBesideReasons(d);
  const name = 'settings compared with the baseline';
  // the differences that are why the run cannot be judged are the error above: not "no differences"
  if (warnings.length === 0)
    return {
      name,
      out:
        (d.warningsInReasons ?? []).length > 0
          ? 'differences stated as the reason the run cannot be judged'
          : 'no differences',
    };
  return warningCase(
    name,
    warnings.length === 1 ? '1 setting differs' : `${warnings.length} settings differ`,
    warnings,
  );
}

/** The per-name case; none when the decision compared no names. */
function namesCase(d: GateDecision, unit: RateUnit): Case[] {
  if (d.names === undefined) return [];
  const warnings = d.nameWarnings ?? [];
  const bill = cleanBillText(d.names);
  const none = `${bill[0].toLowerCase()}${bill.slice(1, -1)}`;
  // the rates left out, each with why (decision 052), under the warnings or the clean bill
  const skips = d.names.skipped.map((x) => {
    const text = skipText(x, GATE_LABELS, unit);
    return `${text[0].toLowerCase()}${text.slice(1)}`;
  });
  // a rise at one rate alone is no warning, but said as the summary says it
  const unconfirmed = unconfirmedText(d.names, GATE_LABELS, unit);
  const notes = unconfirmed === null ? skips : [unconfirmed, ...skips];
  // one name whatever the count (CI dashboards follow a case by its name)
  const name = 'names at equal rates (warnings)';
  if (warnings.length === 0) return [{ name, out: [none, ...notes].join('\n') }];
  const count = warnings.length === 1 ? '1 name warning' : `${warnings.length} name warnings`;
  return [warningCase(name, count, warnings, notes)];
}

/**
 * The names only one run recorded, which were not compared: a skipped case (a passing case's output
 * is folded away where CI shows it), none when every name was in both runs.
 */
function notComparedCase(d: GateDecision): Case[] {
  const r = d.names;
  if (r === undefined) return [];
  const lines: string[] = [];
  if (r.withoutNames !== null)
    lines.push(
      `${r.withoutNames === 'a' ? 'the baseline' : 'this run'} recorded no per-name results: the other's names are listed, not compared`,
    );
  if (r.added.length > 0) lines.push(`only in this run (added, not compared): ${r.added.join(', ')}`);
  if (r.removed.length > 0) lines.push(`only in the baseline (removed, not compared): ${r.removed.join(', ')}`);
  if (lines.length === 0) return [];
  return [{ name: 'names not compared (only in one run)', skipped: lines.join('; '), out: lines.join('\n') }];
}

/** `unit`: the rates' unit the two runs share (cells.ts pairUnit), for the rates not compared by name. */
export function renderJunit(d: GateDecision, runId: string, unit: RateUnit = 'req/s'): string {
  // the case names the capacity judged: "capacity vs baseline", or the one within the objective
  const judged = d.on === 'slo' ? `${d.judged ?? 'capacity within SLO'} vs baseline` : 'capacity vs baseline';
  const cases: Case[] = [
    d.status === 'invalid' ? { name: 'run can be judged', error: d.reasons.join('; ') } : { name: 'run can be judged' },
    d.status === 'regression' ? { name: judged, failure: d.headline } : { name: judged, out: d.headline },
    settingsCase(d),
    ...namesCase(d, unit),
    ...notComparedCase(d),
  ];
  const failures = cases.filter((c) => c.failure !== undefined).length;
  const errors = cases.filter((c) => c.error !== undefined).length;
  const skipped = cases.filter((c) => c.skipped !== undefined).length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="plateau" tests="${cases.length}" failures="${failures}" errors="${errors}">`,
    `  <testsuite name="plateau gate ${xmlEscape(runId)}" tests="${cases.length}" failures="${failures}" errors="${errors}" skipped="${skipped}">`,
    ...cases.map(caseXml),
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
