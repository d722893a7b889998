/** `plateau k8s manifest` and `plateau k8s run`: k6-operator's TestRun of N k6 runners (docs/k8s.md). */
import fs from 'node:fs';
import path from 'node:path';
import type { Argv } from 'yargs';
import { loadConfig } from '../config/load.ts';
import { loadScenario } from '../scenario/load.ts';
import { defaultScenario } from '../scenario/default.ts';
import { runIds } from '../environment.ts';
import { EXIT, PlateauError } from '../errors.ts';
import { buildManifests, checkParallelism, type Manifests } from '../k8s/manifest.ts';
import { k8sScript, usageOf, type Prepared } from '../k8s/script.ts';
import { overridesOf, withFlags } from './options.ts';
import type { Command } from './flags.ts';
import { refuseHeldSecrets } from './k6-commands.ts';

type Args = Record<string, unknown>;

/** Config, scenario, bundled script and manifests from the flags (both k8s commands start here). */
export async function prepareK8s(a: Args, command: Command): Promise<Prepared> {
  let n: number;
  try {
    n = checkParallelism(a.parallelism);
  } catch (err) {
    usageOf(err);
  }
  const config = await loadConfig(a.config as string | undefined, { ...overridesOf(a, command), out: undefined });
  const scenario = config.scenario ? await loadScenario(config.scenario) : defaultScenario(config.target.url);
  const { runId, idKey } = runIds(config.output.runId);
  const script = await k8sScript(config, scenario, { runId, idKey }, n);
  const secrets = scenario.secrets ?? [];
  if (secrets.length > 0 && !a.secret)
    throw new PlateauError(
      `the scenario reads secrets (${secrets.join(', ')}) and no --secret names the Kubernetes Secret that holds them`,
      `create it (kubectl -n ${String(a.namespace)} create secret generic plateau-secrets ${secrets.map((s) => `--from-literal=${s}=...`).join(' ')}) and pass --secret plateau-secrets; plateau never writes a secret into a manifest`,
      'k8s-secret-missing',
      EXIT.usage,
    );
  let manifests: Manifests;
  try {
    manifests = buildManifests({
      runId,
      idKey,
      parallelism: n,
      namespace: String(a.namespace),
      script: script.text,
      prometheusUrl: String(a.prometheus),
      secretName: a.secret as string | undefined,
      image: a.image as string | undefined,
    });
  } catch (err) {
    usageOf(err);
  }
  refuseHeldSecrets(script.text, secrets, process.env, 'the ConfigMap');
  return { manifests, script, runId, idKey, config };
}

/** Writes configmap.json and testrun.json (kubectl create -f reads JSON as it reads YAML); returns their paths. */
export function writeManifests(dir: string, m: Manifests): string[] {
  const files = [
    [path.join(dir, 'configmap.json'), m.configMap],
    [path.join(dir, 'testrun.json'), m.testRun],
  ] as const;
  try {
    fs.mkdirSync(dir, { recursive: true });
    for (const [f, o] of files) fs.writeFileSync(f, `${JSON.stringify(o, null, 2)}\n`);
  } catch (err) {
    throw new PlateauError(
      `cannot write the manifests to ${dir}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      'give --out a writable directory',
      'output-unwritable',
      EXIT.usage,
    );
  }
  return files.map(([f]) => f);
}

/** `plateau k8s manifest --parallelism N --out DIR`: writes the ConfigMap and TestRun, applies nothing. */
export async function k8sManifestCommand(a: Args): Promise<number> {
  const p = await prepareK8s(a, 'k8s manifest');
  const files = writeManifests(path.resolve(String(a.out)), p.manifests).map((f) => path.relative(process.cwd(), f));
  process.stdout.write(
    `wrote ${files.join(' and ')} (TestRun ${p.manifests.name}, ${String(a.parallelism)} runners, run id ${p.runId}; ${p.script.vusReason})\n` +
      `create them with: kubectl create -f ${files[0]} -f ${files[1]} (not apply: its annotation holding the whole script is refused over 256 KiB)\n` +
      `k6-operator starts the runners; plateau judges nothing unless it runs them: plateau k8s run --parallelism ${String(a.parallelism)} --namespace ${String(a.namespace)} --prometheus ${String(a.prometheus)}\n`,
  );
  return EXIT.ok;
}

export async function k8sRunCommand(a: Args): Promise<number> {
  const { runK8s } = await import('../k8s/run.ts');
  const p = await prepareK8s(a, 'k8s run');
  // Ctrl-C stops every runner before plateau exits; a second Ctrl-C exits at once (the runners may go on: said)
  const ac = new AbortController();
  const onSigint = () => {
    if (ac.signal.aborted) {
      process.stderr.write(
        `plateau: second Ctrl-C: exiting without stopping the runners; stop them with: kubectl -n ${String(a.namespace)} delete testrun ${p.manifests.name}\n`,
      );
      process.exit(EXIT.interrupted);
    }
    ac.abort();
  };
  process.on('SIGINT', onSigint);
  try {
    return await runK8s({
      prepared: p,
      namespace: String(a.namespace),
      prometheusUrl: String(a.prometheus),
      parallelism: Number(a.parallelism),
      keep: a.keep === true,
      runnerApi: a['runner-api'] as string | undefined,
      outDir: (a.out as string | undefined) ?? p.config.output.dir,
      signal: ac.signal,
    });
  } finally {
    process.off('SIGINT', onSigint);
  }
}

/** `plateau k8s <action>`: its two subcommands, each with its flags from the table. */
export function k8sBuilder(setCode: (code: number) => void) {
  return <T>(y: Argv<T>) =>
    y
      .command(
        'manifest',
        'write the ConfigMap (bundled k6 script) and TestRun of N runners; apply nothing',
        (s) => withFlags(s, 'k8s manifest'),
        async (a) => setCode(await k8sManifestCommand(a)),
      )
      .command(
        'run',
        "apply the TestRun, judge each step live from the runners' remote-write series, stop them at the plateau",
        (s) => withFlags(s, 'k8s run'),
        async (a) => setCode(await k8sRunCommand(a)),
      )
      .demandCommand(1, 'name a k8s action: run or manifest');
}
