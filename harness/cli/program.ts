/**
 * The CLI's commands and their flags (the flags from the one table, flags.ts); main.ts runs it on
 * the process's argv, tests read its help in-process.
 */
import yargs, { type Argv } from 'yargs';
import { PlateauError, EXIT } from '../errors.ts';
import { nearest } from '../config/nearest.ts';
import { COMMANDS, K8S_COMMANDS, flagsOf, overrideKey, type Command } from './flags.ts';
import { nonNumberFlags, withFlags } from './options.ts';
import { runCommand, planCommand } from './commands.ts';
import {
  baselineBuilder,
  baselineCommand,
  compareBuilder,
  compareCommand,
  gateBuilder,
  gateCommand,
} from './gate-commands.ts';
import { k6ScriptCommand, k6ScriptOptions, importCommand, importOptions } from './k6-commands.ts';
import { reportOrMergeCommand, reportOptions } from './report-command.ts';
import { k8sBuilder } from './k8s-commands.ts';
import type { CliIo } from './io.ts';
import { missingArguments } from './missing-args.ts';

/**
 * `--tolerance -5%` as `--tolerance=-5%`: yargs takes a value that starts with a dash for flags of
 * its own unless it reads as a number ("Unknown arguments: 5, %"); the option's check then says
 * what is wrong with the value.
 */
function attachDashValues(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const next = argv[i + 1];
    if (/^--[^=]+$/.test(a) && next !== undefined && /^-\d[\d.]*%$/.test(next)) {
      out.push(`${a}=${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}

/** The yargs program; each command's handler hands its exit code to `setCode`. */
export function program(argv: string[], setCode: (code: number) => void, io: CliIo): Argv {
  return (
    yargs(attachDashValues(argv))
      .scriptName('plateau')
      .usage('$0 <command> [options]\n\nStepped open-model load that stops on the throughput plateau.')
      .command(
        'run',
        'preflight, reset, RTT, warmup, stepped load, report',
        (y) => withFlags(y, 'run'),
        async (a) => {
          setCode(await runCommand(a));
        },
      )
      .command(
        'plan',
        'print the plan (stages, steps, durations, expected samples) and send nothing',
        (y) => withFlags(y, 'plan'),
        async (a) => {
          setCode(await planCommand(a, io));
        },
      )
      .command(
        'report [run-dir]',
        'rebuild every output of a run from its store alone (--merge: several runs into one)',
        (y) => reportOptions(y),
        async (a) => {
          setCode(await reportOrMergeCommand(a));
        },
      )
      .command(
        'k6-script',
        'write the k6 script plateau would run (scenario bundled, plan as options)',
        (y) => k6ScriptOptions(y),
        async (a) => {
          setCode(await k6ScriptCommand(a, io));
        },
      )
      .command(
        'import <tool> <file>',
        'turn a finished k6 run (--out json/csv, .gz) into a plateau run and report',
        (y) => importOptions(y),
        async (a) => {
          setCode(await importCommand(a));
        },
      )
      .command(
        'compare <run-a> <run-b>',
        'two runs side by side at equal rates, with warnings when they are not comparable',
        compareBuilder,
        async (a) => {
          setCode(await compareCommand(a, io));
        },
      )
      .command(
        'baseline <action> <run>',
        'save a run as the baseline the gate holds later runs to (action: save)',
        baselineBuilder,
        async (a) => {
          setCode(await baselineCommand(a, io));
        },
      )
      .command(
        'gate <run>',
        'exit 0 when capacity holds against --baseline, 1 on a regression, 3 when the run cannot be judged (2: a usage error)',
        gateBuilder,
        async (a) => {
          setCode(await gateCommand(a, io));
        },
      )
      .command('k8s', 'k6-operator: a TestRun of N k6 runners, judged live (docs/k8s.md)', k8sBuilder(setCode))
      // a number flag given text: named with what was typed, before any command reads it as absent
      .middleware((a) => {
        const typed = commandTyped(argv);
        const bad = typed ? nonNumberFlags(a, typed, argv) : null;
        if (bad) throw bad;
      })
      .demandCommand(1, 'name a command: run, plan or report')
      .strict()
      .help()
      .fail((msg, err) => {
        throw err ?? missingArguments(msg, argv) ?? new PlateauError(msg, usageFix(msg, argv), 'usage', EXIT.usage);
      })
  );
}

/**
 * The fix of a usage error: for yargs' "Unknown argument(s): maxrate, runn", the flag or command
 * each most likely misspells (as a config's unknown keys get theirs), else the help. `argv`: what
 * was typed, to tell a flag (--runid: --run-id) from a command (runn: run), and which command's
 * flags a misspelt flag may mean: only the typed command's own (`plateau compare --tolerence`
 * read "did you mean --tolerance", a flag compare refuses).
 */
export function usageFix(msg: string, argv: readonly string[] = []): string {
  const listed = /^Unknown arguments?: (.+)$/.exec(msg)?.[1]?.split(', ') ?? [];
  // yargs lists a kebab-case flag twice, as typed and in camelCase (max-rte, maxRte)
  const unknown = listed.filter((u) => !listed.some((o) => o !== u && o.includes('-') && overrideKey(o) === u));
  const typed = commandTyped(argv);
  const own = [...new Set((typed ? flagsOf(typed) : []).map((f) => f.name)), 'help', 'version'];
  const help = helpOfTyped(argv);
  // a flag of other commands, spelt right, is no typo of this one's: it is said to be theirs
  const takers = (u: string) => [...COMMANDS, ...K8S_COMMANDS].filter((c) => flagsOf(c).some((f) => f.name === u));
  const elsewhere = unknown.filter((u) => !own.includes(u) && takers(u).length > 0);
  const meant = unknown.flatMap((u) => {
    if ((COMMANDS as readonly string[]).includes(u) || elsewhere.includes(u)) return [];
    const typedAsFlag = argv.some((a) => a === `--${u}` || a === `-${u}` || a.startsWith(`--${u}=`));
    const command = typedAsFlag ? undefined : nearest(u, COMMANDS);
    if (command) return [`the command ${command} (not ${u})`];
    const flag = nearest(u, own);
    return flag ? [`--${flag} (not --${u})`] : [];
  });
  const guess = meant.length ? `did you mean ${meant.join(', ')}?` : undefined;
  if (elsewhere.length === 0) return guess ? `${guess} (${help} lists them)` : `see ${help}`;
  const theirs = elsewhere.map((u) => `--${u} is a flag of plateau ${takers(u).join(', ')}`);
  const notHere = `${theirs.join('; ')}, not of ${help.replace(/ --help$/, '')}: see ${help}`;
  return guess ? `${guess} ${notHere}` : notHere;
}

/** The command typed, whose flags its help lists (`k8s run` for `plateau k8s run ...`); none before one is named. */
function commandTyped(argv: readonly string[]): Command | undefined {
  const [first, second] = argv;
  if (first === 'k8s')
    return (K8S_COMMANDS as readonly string[]).find((c) => c === `k8s ${second}`) as Command | undefined;
  return (COMMANDS as readonly string[]).includes(first ?? '') ? (first as Command) : undefined;
}

/**
 * The help of the command typed (`plateau import k6 --help` for `plateau import k6 FILE --json`):
 * its own flags, where `plateau --help` lists the commands only; the top help without one.
 */
function helpOfTyped(argv: readonly string[]): string {
  const [first, second] = argv;
  const sub = second !== undefined && !second.startsWith('-') ? second : undefined;
  if (first === 'k8s') return sub === 'run' || sub === 'manifest' ? `plateau k8s ${sub} --help` : 'plateau k8s --help';
  if (!(COMMANDS as readonly string[]).includes(first ?? '')) return 'plateau --help';
  return first === 'import' && sub ? `plateau import ${sub} --help` : `plateau ${first} --help`;
}
