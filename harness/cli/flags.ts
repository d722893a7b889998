/**
 * Every CLI flag, once: its yargs definition, the commands that take it, and the config field it
 * overrides. The commands' options (options.ts), the k6 commands and the config overrides
 * (config/load.ts applyOverrides) are all read from this table, so a flag cannot mean one thing in
 * `--help` and another in the config. Positionals stay with their commands (main.ts, builders).
 *
 * A flag's help position in a command is its place in this table; `per[command].listBefore`
 * moves it up for one command, where that command has always listed it elsewhere.
 */
import type { Options } from 'yargs';

export const COMMANDS = ['run', 'plan', 'report', 'k6-script', 'import', 'compare', 'baseline', 'gate'] as const;
/** k6-operator's commands (`plateau k8s run|manifest`): subcommands, so their help is checked in test/k8s-cli.test.ts. */
export const K8S_COMMANDS = ['k8s run', 'k8s manifest'] as const;
export type Command = (typeof COMMANDS)[number] | (typeof K8S_COMMANDS)[number];

/** How one command reads a flag differently: its help text, its default, its place in the help. */
export type PerCommand = Partial<Options> & { listBefore?: string };

export interface Flag {
  /** As typed, without the dashes. */
  readonly name: string;
  readonly option: Options;
  readonly commands: readonly Command[];
  readonly per?: Partial<Record<Command, PerCommand>>;
  /** The config field the flag sets (a dotted path), and how the flag's value becomes the field's. */
  readonly config?: { readonly path: string; readonly from?: (v: unknown) => unknown };
  /**
   * A duration flag's unit: its value is a plain number of these ('s': whole seconds). A k6 user
   * types k6's durations (--hold 30s): told the unit, with the number to give (options.ts).
   */
  readonly unit?: 's' | 'ms';
}

/** The commands that load a config: their flags lay over the file's fields. */
const LOAD = ['run', 'plan', 'k6-script'] as const satisfies readonly Command[];
/** Step flags: the load commands plan with them; `import` cuts a finished k6 run into steps with them. */
const STEPS = [...LOAD, 'import'] as const satisfies readonly Command[];
const COST = ['compare', 'gate'] as const satisfies readonly Command[];
/** The k8s commands load a config and plan with it as the load commands do. */
const K8S = K8S_COMMANDS;

export const FLAGS = [
  {
    name: 'config',
    commands: [...LOAD, ...K8S],
    option: { type: 'string', describe: 'plateau.config.ts to use (default: ./plateau.config.ts when present)' },
  },
  // k6-script takes the demo's flags, and the native engine's (--http-client, --warmup, --workers,
  // --engine), only to refuse them with the reason (k6-commands.ts): not listed
  {
    name: 'demo',
    commands: LOAD,
    option: { type: 'boolean', default: false, describe: 'start the embedded demo target on 127.0.0.1 and load it' },
    per: { 'k6-script': { hidden: true } },
  },
  {
    name: 'demo-slots',
    commands: LOAD,
    option: { type: 'number', default: 4, describe: 'demo: pool slots' },
    per: { 'k6-script': { hidden: true } },
  },
  {
    name: 'demo-hold-ms',
    commands: LOAD,
    unit: 'ms',
    option: {
      type: 'number',
      default: 10,
      describe:
        "demo: ms a write holds a slot (a confirm the same, a read a fifth); the demo prints its mix's capacity when it starts",
    },
    per: { 'k6-script': { hidden: true } },
  },
  {
    name: 'target',
    commands: [...LOAD, 'import', ...K8S],
    config: { path: 'target.url' },
    option: { type: 'string', describe: 'URL under load, e.g. http://127.0.0.1:8080/orders' },
    per: { import: { describe: 'what was loaded, shown in the report', listBefore: 'run-id' } },
  },
  {
    name: 'scenario',
    commands: [...LOAD, ...K8S],
    config: { path: 'scenario' },
    option: { type: 'string', describe: 'scenario module (defineScenario); default GET on the target' },
  },
  {
    name: 'start-rate',
    commands: [...STEPS, ...K8S],
    config: { path: 'steps.startPerSec' },
    option: { type: 'number', describe: 'first step, arrivals/s' },
    per: { import: { describe: 'first step, arrivals/s (with the other step flags; else derived from the data)' } },
  },
  {
    name: 'step-rate',
    commands: [...STEPS, ...K8S],
    config: { path: 'steps.stepPerSec' },
    option: { type: 'number', describe: 'rate added per step, arrivals/s' },
  },
  {
    name: 'max-rate',
    commands: [...STEPS, ...K8S],
    config: { path: 'steps.maxPerSec' },
    option: { type: 'number', describe: 'last step, arrivals/s' },
  },
  {
    name: 'hold',
    commands: [...STEPS, ...K8S],
    config: { path: 'steps.holdS' },
    unit: 's',
    option: { type: 'number', describe: 'seconds each step holds its rate' },
  },
  {
    name: 'ramp',
    commands: [...STEPS, ...K8S],
    config: { path: 'steps.rampS' },
    unit: 's',
    option: { type: 'number', describe: 'seconds of ramp before each hold' },
    per: { import: { listBefore: 'hold' } },
  },
  {
    name: 'settle',
    commands: [...STEPS, ...K8S],
    config: { path: 'steps.settleS' },
    unit: 's',
    option: { type: 'number', describe: 'seconds at the start of each hold left out of judging' },
  },
  {
    name: 't0',
    commands: ['import'],
    option: { type: 'string', describe: 'scenario start (ISO time or epoch ms); default: first vus point - 1 s' },
  },
  // not the load commands' --scenario: import keeps k6's own scenarios by name
  {
    name: 'scenario',
    commands: ['import'],
    option: { type: 'string', array: true, describe: 'k6 scenario name(s) to keep (default: all)' },
  },
  {
    name: 'open-model',
    commands: ['import'],
    option: {
      type: 'boolean',
      describe:
        'the run was an arrival rate: skip the closed-model check (a run whose VUs were all busy for 10 s reads as constant-vus)',
    },
  },
  {
    name: 'vus',
    commands: [...LOAD, ...K8S],
    config: { path: 'vus.preAllocated' },
    option: { type: 'number', describe: "preallocated VUs (default: sized by Little's law)" },
  },
  {
    name: 'max-vus',
    commands: [...LOAD, ...K8S],
    config: { path: 'vus.max' },
    option: { type: 'number', describe: "upper bound of VUs (default: 4x the preallocated sized by Little's law)" },
  },
  {
    name: 'timeout-ms',
    commands: [...LOAD, ...K8S],
    config: { path: 'http.timeoutMs' },
    unit: 'ms',
    option: { type: 'number', describe: 'per-request timeout' },
  },
  {
    name: 'http-client',
    commands: LOAD,
    config: { path: 'http.client' },
    option: { choices: ['undici', 'socket'], describe: 'native engine: the bare socket client (default) or undici' },
    per: { 'k6-script': { hidden: true } },
  },
  {
    name: 'merge',
    commands: ['report'],
    option: {
      type: 'string',
      array: true,
      describe: 'merge these runs (loaded at the same time) into one run and report',
    },
  },
  {
    name: 'run-id',
    commands: [...LOAD, 'import', 'report', ...K8S],
    config: { path: 'output.runId' },
    option: { type: 'string', describe: 'name of the run (default: timestamp + random)' },
    per: { report: { describe: 'with --merge: name of the merged run' } },
  },
  {
    name: 'out',
    commands: [...LOAD, 'import', 'report'],
    config: { path: 'output.dir' },
    option: { type: 'string', describe: 'directory of run stores (default runs)' },
    per: {
      import: { default: 'runs', describe: 'directory of run stores' },
      report: {
        describe: 'with --merge: directory of run stores for the merged run (default runs)',
        listBefore: 'run-id',
      },
    },
  },
  {
    name: 'warmup',
    commands: LOAD,
    config: { path: 'warmup.enabled' },
    option: { type: 'boolean', describe: 'run the warmup stage (--no-warmup to skip)' },
    per: { 'k6-script': { hidden: true } },
  },
  {
    name: 'workers',
    commands: LOAD,
    config: { path: 'workers', from: (v) => (v === 'auto' ? 'auto' : Number(v)) },
    option: {
      type: 'string',
      describe:
        "native engine threads: 'auto' (one per CPU this process may use: cores, capped by a container's CPU quota) or a number",
    },
    per: { 'k6-script': { hidden: true } },
  },
  {
    name: 'engine',
    commands: LOAD,
    config: { path: 'engine' },
    option: {
      choices: ['native', 'k6'],
      describe: 'who sends the load: the embedded engine (default) or k6 (found via K6_BIN or PATH)',
    },
    per: { 'k6-script': { hidden: true } },
  },
  {
    name: 'execution-segment',
    commands: LOAD,
    config: { path: 'k6.executionSegment' },
    option: { type: 'string', describe: "k6: this instance's share of the arrivals, e.g. 0:1/2 (passed to k6)" },
  },
  {
    name: 'execution-segment-sequence',
    commands: LOAD,
    config: { path: 'k6.executionSegmentSequence' },
    option: { type: 'string', describe: "k6: every instance's cut points, e.g. 0,1/2,1 (passed to k6)" },
  },
  {
    name: 'k6-out',
    commands: LOAD,
    config: { path: 'k6.out' },
    option: {
      choices: ['json', 'json.gz', 'csv', 'csv.gz'],
      describe: 'k6: output format plateau streams (default json)',
    },
    per: {
      'k6-script': { describe: 'k6: the output format of the k6 command it prints, k6-out.<format> (default json)' },
    },
  },
  {
    name: 'out-file',
    commands: ['k6-script'],
    option: { type: 'string', default: 'plateau-k6.js', describe: 'where to write the k6 script' },
  },
  // compare's and baseline's --out name a file, not a directory of run stores
  {
    name: 'out',
    commands: ['compare'],
    option: { type: 'string', describe: 'also write the comparison to this Markdown file' },
  },
  {
    name: 'out',
    commands: ['baseline'],
    option: { type: 'string', default: 'baseline.json', describe: 'where to write the baseline' },
  },
  {
    name: 'force',
    commands: ['baseline'],
    option: { type: 'boolean', default: false, describe: 'save even a run that cannot be judged' },
  },
  {
    name: 'baseline',
    commands: ['gate'],
    option: { type: 'string', demandOption: true, describe: 'baseline.json written by plateau baseline save' },
  },
  {
    name: 'tolerance',
    commands: ['gate'],
    option: { type: 'string', default: '5%', describe: 'capacity drop that is still noise, e.g. 5% or 0.05' },
  },
  {
    name: 'on',
    commands: ['gate'],
    option: {
      choices: ['capacity', 'slo'],
      default: 'capacity',
      describe: "which capacity is judged: the plateau's, or the one within the latency objective (config slo)",
    },
  },
  {
    name: 'junit',
    commands: ['gate'],
    option: { type: 'string', describe: 'JUnit XML output (default: <run-dir>/gate-junit.xml)' },
  },
  {
    name: 'summary',
    commands: ['gate'],
    option: { type: 'string', describe: 'Markdown summary output (default: <run-dir>/gate-summary.md)' },
  },
  {
    name: 'monthly-cost',
    commands: COST,
    option: { type: 'number', describe: 'price of the target per month (fixed cost per request)' },
  },
  {
    name: 'usage-series',
    commands: COST,
    option: { type: 'string', describe: 'gauge series of units consumed per second (usage cost per request)' },
  },
  { name: 'unit-price', commands: COST, option: { type: 'number', describe: 'price of one unit of --usage-series' } },
  { name: 'currency', commands: COST, option: { type: 'string', describe: 'currency label for prices, e.g. USD' } },
  // k6-operator (plateau k8s run|manifest, docs/k8s.md)
  {
    name: 'parallelism',
    commands: K8S,
    option: { type: 'number', demandOption: true, describe: 'k8s: number of k6 runner pods sharing the arrivals' },
  },
  {
    name: 'namespace',
    commands: K8S,
    option: { type: 'string', default: 'default', describe: 'k8s: namespace of the TestRun and its ConfigMap' },
  },
  {
    name: 'prometheus',
    commands: K8S,
    option: {
      type: 'string',
      demandOption: true,
      describe:
        'k8s: Prometheus base URL with the remote-write receiver and native histograms (runners push to it, plateau reads it)',
    },
  },
  {
    name: 'secret',
    commands: K8S,
    option: {
      type: 'string',
      describe: "k8s: Kubernetes Secret whose keys become the runners' environment (the scenario's secrets)",
    },
  },
  {
    name: 'image',
    commands: K8S,
    option: { type: 'string', describe: "k8s: runner image (default: the operator's grafana/k6)" },
  },
  {
    name: 'out',
    commands: ['k8s manifest'],
    option: { type: 'string', default: 'k8s', describe: 'k8s: directory to write the ConfigMap and TestRun to' },
  },
  {
    name: 'out',
    commands: ['k8s run'],
    config: { path: 'output.dir' },
    option: { type: 'string', describe: 'directory of run stores (default runs)' },
  },
  {
    name: 'runner-api',
    commands: ['k8s run'],
    option: {
      type: 'string',
      describe:
        "k8s: URL of runner {i}'s k6 REST API (default http://{name}-service-{i}.{namespace}.svc:6565, inside the cluster)",
    },
  },
  {
    name: 'keep',
    commands: ['k8s run'],
    option: {
      type: 'boolean',
      default: false,
      describe: 'k8s: leave the TestRun and ConfigMap in the cluster after the run',
    },
  },
  {
    name: 'json',
    commands: ['plan', 'compare', 'gate'],
    option: {
      type: 'boolean',
      default: false,
      describe: 'print one JSON document (schemaVersion, kind) instead of the text',
    },
  },
] as const satisfies readonly Flag[];

/** The flags a command takes, in the order its help lists them, each with that command's reading. */
export function flagsOf(command: Command): { name: string; option: Options; flag: Flag }[] {
  const own: Flag[] = (FLAGS as readonly Flag[]).filter((f) => f.commands.includes(command));
  const ordered = own.filter((f) => !f.per?.[command]?.listBefore);
  for (const f of own.filter((x) => x.per?.[command]?.listBefore)) {
    const before = ordered.findIndex((x) => x.name === f.per![command]!.listBefore);
    if (before < 0)
      throw new Error(
        `flags.ts: --${f.name} of ${command} lists before --${f.per![command]!.listBefore}, which ${command} does not take`,
      );
    ordered.splice(before, 0, f);
  }
  return ordered.map((flag) => {
    const { listBefore: _, ...override } = flag.per?.[command] ?? {};
    return { name: flag.name, option: { ...flag.option, ...override }, flag };
  });
}

type ConfigFlag = Extract<(typeof FLAGS)[number], { config: object }>;
type Camel<S extends string> = S extends `${infer H}-${infer T}` ? `${H}${Capitalize<Camel<T>>}` : S;

/** The key a flag's value has among the overrides: the flag's name in camelCase (max-rate -> maxRate). */
export type OverrideKey = Camel<ConfigFlag['name']>;

export function overrideKey(flagName: string): string {
  return flagName.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** The flags that set a config field. */
export const CONFIG_FLAGS: readonly (Flag & { config: NonNullable<Flag['config']> })[] = (
  FLAGS as readonly Flag[]
).filter((f): f is Flag & { config: NonNullable<Flag['config']> } => f.config !== undefined);
