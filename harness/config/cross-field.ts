/**
 * Rules between fields (max >= start, settle < hold, minS <= maxS, ...). They run on the parts of
 * the config that are valid on their own (valid-parts.ts), so a config with other mistakes still
 * hears about these: a rule runs when every field it reads is valid, and stays silent otherwise.
 */
import { settleSOf } from '../../analysis/plan.ts';
import { limitProblems } from '../limits.ts';
import { urlSecrets } from '../secret-scrub.ts';
import type { Problem } from './messages.ts';
import { NO_FLAGS, type Given } from './given.ts';
import type { PlateauConfig } from './schema.ts';
import type { ConfigParts } from './valid-parts.ts';

// The default settle is the plan's (a pure function of the steps); re-exported for config's readers.
export { settleSOf };

/**
 * `failed` holds the dotted fields that failed on their own; a rule reading one of them is skipped.
 * `given`: the fields flags set, whose problems are said in the flags' words.
 */
export function crossFieldProblems(
  c: ConfigParts,
  failed: ReadonlySet<string> = new Set(),
  given: Given = NO_FLAGS,
): Problem[] {
  return [
    ...stepProblems(c, failed, given),
    ...sectionProblems(c, failed, given),
    ...warmupProblems(c),
    ...targetProblems(c),
    ...urlSecretProblems(c),
    ...limitInputProblems(c, given),
  ];
}

function stepProblems(c: ConfigParts, failed: ReadonlySet<string>, given: Given): Problem[] {
  const out: Problem[] = [];
  const s = c.steps ?? {};
  if (s.maxPerSec !== undefined && s.startPerSec !== undefined && s.maxPerSec < s.startPerSec)
    out.push(maxBelowStart(s.maxPerSec, s.startPerSec, given));
  const holdS = s.holdS;
  const settleS =
    holdS !== undefined && !failed.has('steps.settleS') ? settleSOf({ holdS, settleS: s.settleS }) : undefined;
  if (holdS !== undefined && settleS !== undefined && settleS >= holdS) out.push(noSteadyWindow(holdS, settleS, given));
  const fractional = (['rampS', 'holdS', 'settleS'] as const).filter(
    (k) => s[k] !== undefined && !Number.isInteger(s[k]),
  );
  const byFlag = fractional.filter((k) => given.flag(`steps.${k}`));
  for (const k of byFlag) {
    // a flag takes whole seconds: its fix is the flag's, on a line of its own
    out.push(
      given.problem(
        `steps.${k}`,
        s[k]!,
        `is not whole seconds (windows are judged on one-second buckets): give e.g. ${given.flag(`steps.${k}`)} ${Math.round(s[k]!) || 1}`,
      ),
    );
  }
  const inFile = fractional.filter((k) => !given.flag(`steps.${k}`));
  if (inFile.length) {
    // one line for the section (windows are judged on one-second buckets), naming each field
    const named = inFile.map((k) => `steps.${k} is ${s[k]}`).join(', ');
    const fix = inFile.map((k) => `${k}: ${Math.round(s[k]!) || 1}`).join(', ');
    out.push({
      field: 'steps',
      message: `${named}: rampS, holdS and settleS must be whole seconds (windows are judged on one-second buckets): give e.g. ${fix}`,
    });
  }
  if (holdS !== undefined && settleS !== undefined && s.startPerSec !== undefined) {
    const steadyS = holdS - settleS;
    if (steadyS > 0 && s.startPerSec * steadyS < 1) {
      out.push(
        given.problem(
          'steps.startPerSec',
          s.startPerSec,
          `arrivals/s expects no arrival in a ${steadyS} s steady window, so the first step could judge nothing: raise ${given.flag('steps.startPerSec') ?? 'the rate'} or lengthen ${given.flag('steps.holdS') ?? 'the hold'}`,
        ),
      );
    }
  }
  return out;
}

/**
 * The last step's rate below the first's. Said in the words the user set them in: a flag given for
 * one of the two laid over the file's other (the demo's config starts at 50: --max-rate 20) is told
 * to give the other flag too.
 */
function maxBelowStart(max: number, start: number, given: Given): Problem {
  const maxFlag = given.flag('steps.maxPerSec');
  const startFlag = given.flag('steps.startPerSec');
  if (maxFlag && startFlag)
    return given.problem(
      'steps.maxPerSec',
      max,
      `is below ${startFlag} ${start}: raise ${maxFlag} or lower ${startFlag}`,
    );
  if (maxFlag)
    return given.problem(
      'steps.maxPerSec',
      max,
      `is below the first step, ${start} (steps.startPerSec; give --start-rate too)`,
    );
  if (startFlag)
    return given.problem(
      'steps.startPerSec',
      start,
      `is above the last step, ${max} (steps.maxPerSec; give --max-rate too)`,
    );
  return {
    field: 'steps.maxPerSec',
    message: `${max} is below steps.startPerSec ${start}: raise maxPerSec or lower startPerSec`,
  };
}

/**
 * A settle as long as the hold, in the words the user set them in (a settle by default is shorter
 * than its hold: settleSOf, so the settle here is the file's or --settle's).
 */
function noSteadyWindow(holdS: number, settleS: number, given: Given): Problem {
  const holdFlag = given.flag('steps.holdS');
  const settleFlag = given.flag('steps.settleS');
  if (settleFlag)
    return given.problem(
      'steps.settleS',
      settleS,
      `leaves no steady window in a ${holdS} s hold (${given.name('steps.holdS')}): give ${settleFlag} below ${holdS}, or a --hold above ${settleS}${holdFlag ? '' : ' as well'}`,
    );
  if (holdFlag)
    return given.problem(
      'steps.holdS',
      holdS,
      `leaves no steady window after the settle of ${settleS} s (steps.settleS; give --settle too, below ${holdS}, or a ${holdFlag} above ${settleS})`,
    );
  return {
    field: 'steps.settleS',
    message: `settle ${settleS} s leaves no steady window in a ${holdS} s hold: make holdS longer than settleS`,
  };
}

/** Sections that would do nothing as given. */
function sectionProblems(c: ConfigParts, failed: ReadonlySet<string>, given: Given): Problem[] {
  const out: Problem[] = [];
  const m = c.metrics;
  const metricsFailed = [...failed].some((f) => f === 'metrics.url' || f.startsWith('metrics.prometheus'));
  if (m && !m.url && !m.prometheus && !metricsFailed) {
    out.push({
      field: 'metrics',
      message:
        "give metrics.url (the target's /metrics) or metrics.prometheus.url (a Prometheus server scraping it), or remove the section",
    });
  }
  const t = c.topology;
  if (
    t &&
    t.metric === undefined &&
    t.command === undefined &&
    !failed.has('topology.metric') &&
    !failed.has('topology.command')
  ) {
    out.push({
      field: 'topology',
      message:
        'the probe reads nothing: give topology.metric (a series read with the metrics, e.g. kube_deployment_status_replicas) or topology.command (prints a number), or remove the section',
    });
  }
  if (c.slo?.source === 'server' && !failed.has('slo.source')) {
    if (!m)
      out.push({
        field: 'slo.source',
        message:
          "'server' judges the server's histogram percentiles, and there is no metrics section: add metrics (its url or prometheus) with a request histogram, or use source: 'client'",
      });
    else if (m.requests?.preset === 'nginx')
      out.push({
        field: 'slo.source',
        message:
          "'server' judges the server's histogram percentiles, and the nginx preset is a bare request counter: use a preset with a histogram (spring, otel, prometheus-client, envoy), or source: 'client'",
      });
  }
  const { preAllocated, max } = c.vus ?? {};
  if (preAllocated !== undefined && max !== undefined && max < preAllocated) {
    out.push(
      given.problem(
        'vus.max',
        max,
        `is below ${given.name('vus.preAllocated')} ${preAllocated}: raise ${given.name('vus.max')}`,
      ),
    );
  }
  return out;
}

function warmupProblems(c: ConfigParts): Problem[] {
  const w = c.warmup;
  if (!w) return [];
  const out: Problem[] = [];
  if (w.minS !== undefined && w.maxS !== undefined && w.minS > w.maxS) {
    out.push({
      field: 'warmup.minS',
      message: `${w.minS} s is above warmup.maxS ${w.maxS} s, the longest warmup: lower warmup.minS or raise warmup.maxS to at least ${w.minS}`,
    });
  }
  // The k6 engine runs no warmup of plateau's own (harness/limits.ts warmupS).
  if (
    w.enabled &&
    c.engine !== 'k6' &&
    w.windowS !== undefined &&
    w.stableWindows !== undefined &&
    w.maxS !== undefined &&
    w.windowS * w.stableWindows > w.maxS
  ) {
    out.push({
      field: 'warmup.maxS',
      message: `${w.maxS} s cannot hold ${w.stableWindows} stable windows of ${w.windowS} s (${w.windowS * w.stableWindows} s), so the warmup could never be judged stable: raise warmup.maxS to at least ${w.windowS * w.stableWindows}, or lower warmup.windowS or warmup.stableWindows`,
    });
  }
  return out;
}

function targetProblems(c: ConfigParts): Problem[] {
  const text = c.target?.url;
  if (text === undefined) return [];
  const url = new URL(text);
  if (/^https?:$/.test(url.protocol)) return [];
  // "localhost:8080" parses as the scheme "localhost:"
  const bare = /^[a-z0-9.-]+:\d+$/i.test(url.protocol + url.pathname);
  return [
    {
      field: 'target.url',
      message: `protocol ${url.protocol} is not supported: use http:// or https://${bare ? `, e.g. http://${text}` : ''}`,
    },
  ];
}

/** limits.ts reads the steps, warmup, VUs, engine and limits: run it when all of them are valid. */
function limitInputProblems(c: ConfigParts, given: Given): Problem[] {
  const s = c.steps;
  const l = c.limits;
  const w = c.warmup;
  const complete =
    s &&
    [s.startPerSec, s.stepPerSec, s.maxPerSec, s.rampS, s.holdS].every((v) => v !== undefined) &&
    l &&
    [l.maxRatePerSec, l.maxDurationS, l.maxInFlight].every((v) => v !== undefined) &&
    w &&
    w.enabled !== undefined &&
    w.maxS !== undefined &&
    c.vus &&
    c.engine !== undefined;
  return complete ? limitProblems(c as PlateauConfig, given) : [];
}

/**
 * A credential written into a URL of the config (user:password@, ?access_token=...) would be sent
 * and recorded in clear: refused, whichever URL it is. The message names the part, never its value.
 */
function urlSecretProblems(c: ConfigParts): Problem[] {
  const urls: Array<[string, string | undefined]> = [
    ['target.url', c.target?.url],
    ['metrics.url', c.metrics?.url],
    ['metrics.prometheus.url', c.metrics?.prometheus?.url],
    ...(c.reset?.hooks ?? []).map((h, i): [string, string | undefined] => [
      `reset.hooks.${i}.url`,
      h?.kind === 'http' ? h.url : undefined,
    ]),
  ];
  const out: Problem[] = [];
  for (const [field, text] of urls) {
    if (text === undefined) continue;
    let url: URL;
    try {
      url = new URL(text, c.target?.url);
    } catch {
      continue;
    }
    const found = urlSecrets(url);
    // Only the scenario's requests can carry a secret from the environment; the probes and hooks send none.
    const fix =
      field === 'target.url'
        ? "read the secret from the environment (see README, Scenarios): list the variable in the scenario's `secrets` and send it from ctx.env in a header (or in the request URL the scenario builds)"
        : field.startsWith('reset')
          ? 'plateau sends no credentials with a reset call: allow it without them from the load machine, or use a `command` hook that reads the secret from the environment'
          : 'plateau sends no credentials to a metrics endpoint: allow reading it without them from the load machine';
    if (found.userinfo) {
      out.push({
        field,
        message: `the URL carries credentials (user:password@), which would be recorded in clear: remove them; ${fix}`,
      });
    }
    if (found.params.length) {
      out.push({
        field,
        message: `the URL carries a secret-looking parameter (${found.params.map((n) => `"${n}"`).join(', ')}), whose value would be recorded in clear: remove it; ${fix}`,
      });
    }
  }
  return out;
}

/** Whitespace a URL cannot hold (WHATWG's parser drops it at the ends and sends it as %20 inside), named, with its escape. */
const URL_SPACES: Record<string, [string, string]> = {
  ' ': ['a space', '%20'],
  '\t': ['a tab', '%09'],
  '\n': ['a line break', '%0A'],
  '\r': ['a line break', '%0D'],
};

/**
 * target.url as written holds whitespace: refused, with its escape. Read from the raw config (the
 * CLI's --target included): the schema's URL parsing drops a tab or an end's space without a word,
 * and the request would send an inner space as %20.
 */
export function targetSpaceProblems(raw: unknown): Problem[] {
  const text = (raw as { target?: { url?: unknown } } | null)?.target?.url;
  if (typeof text !== 'string') return [];
  const space = [...text].find((ch) => ch in URL_SPACES);
  if (space === undefined) return [];
  const [name, code] = URL_SPACES[space];
  const trimmed = text.trim();
  // at an end only it is a stray from a copy: remove it; inside, it may be meant
  const fix = trimmed.includes(space)
    ? `remove it, or encode it as ${code} yourself if you meant it (${trimmed.replaceAll(space, code)})`
    : `remove it (${trimmed})`;
  return [{ field: 'target.url', message: `${JSON.stringify(text)} holds ${name}, which a URL cannot: ${fix}` }];
}
