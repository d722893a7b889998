/**
 * Installs what the bench compares against, when missing: nginx, wrk and hey (and `time`, for
 * nothing but completeness of the Debian side) from Debian's packages, autocannon and artillery
 * from npm into a cache directory outside the repository (never project dependencies).
 * Runs before the bench enters its loopback-only network namespace: the registries need the network.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { which } from './proc.ts';

/** autocannon 8 has no engines field and runs on Node 20; artillery >= 2.0.22 needs Node 22. */
export const AUTOCANNON = 'autocannon@8.0.0';
export const ARTILLERY = 'artillery@2.0.21';

export const toolCache = (): string =>
  process.env.PLATEAU_BENCH_CACHE ?? path.join(os.homedir(), '.cache', 'plateau-bench');

export interface Tools {
  nginx: string | null;
  wrk: string | null;
  hey: string | null;
  autocannon: string | null;
  artillery: string | null;
}

export function findTools(): Tools {
  const bin = path.join(toolCache(), 'node_modules', '.bin');
  const npmBin = (name: string) => (fs.existsSync(path.join(bin, name)) ? path.join(bin, name) : null);
  return {
    nginx: which('nginx') ?? (fs.existsSync('/usr/sbin/nginx') ? '/usr/sbin/nginx' : null),
    wrk: which('wrk'),
    hey: which('hey'),
    autocannon: npmBin('autocannon'),
    artillery: npmBin('artillery'),
  };
}

const log = (m: string) => process.stderr.write(`bench: ${m}\n`);

/**
 * Installs what is missing of nginx and the peers the bench's cases use (`only`: the tools of the
 * cases chosen, e.g. none but nginx for `--only mix`; default every peer).
 */
export function ensureTools(o: { artillery: boolean; offline: boolean; only?: (keyof Tools)[] }): Tools {
  let t = findTools();
  const want = (k: keyof Tools) => !o.only || o.only.includes(k);
  const debMissing = [
    t.nginx ? null : 'nginx-light',
    t.wrk || !want('wrk') ? null : 'wrk',
    t.hey || !want('hey') ? null : 'hey',
  ].filter((x): x is string => x !== null);
  if (debMissing.length && !o.offline) {
    if (process.getuid?.() !== 0)
      throw new Error(`missing ${debMissing.join(', ')}; installing them needs root (apt-get)`);
    log(`installing ${debMissing.join(' ')} from Debian's packages`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...debMissing], {
      stdio: 'inherit',
      env,
    });
    // The package starts a system nginx on port 80; the bench runs its own, so stop that one.
    try {
      execFileSync('sh', ['-c', 'command -v service >/dev/null && service nginx stop >/dev/null 2>&1 || true']);
    } catch {
      /* not running */
    }
  }
  const npmMissing = [
    t.autocannon || !want('autocannon') ? null : AUTOCANNON,
    o.artillery && !t.artillery ? ARTILLERY : null,
  ].filter((x): x is string => x !== null);
  if (npmMissing.length && !o.offline) {
    const dir = toolCache();
    fs.mkdirSync(dir, { recursive: true });
    const pkg = path.join(dir, 'package.json');
    if (!fs.existsSync(pkg))
      fs.writeFileSync(pkg, JSON.stringify({ name: 'plateau-bench-tools', private: true }, null, 2) + '\n');
    log(`installing ${npmMissing.join(' ')} into ${dir} (not a project dependency)`);
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefix', dir, ...npmMissing], {
      stdio: 'inherit',
      env: { ...process.env, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1', PUPPETEER_SKIP_DOWNLOAD: '1' },
      timeout: 15 * 60_000,
    });
  }
  t = findTools();
  return t;
}
