/**
 * Real PostgreSQL and MariaDB servers for tests: Debian's binaries (scripts/ensure-servers.sh
 * installs them under `make test` as root), each started on 127.0.0.1 on a free port with its data
 * directory in a temp folder, with real password authentication (a wrong password must be
 * refused), and removed on stop. PostgreSQL refuses to run as root: as root, initdb and postgres
 * run as `nobody` (spawn's uid/gid), and mariadbd drops to it with --user. Start one per test file
 * (beforeAll) and reuse it across the file's tests: initdb costs about a second.
 *
 * Without the binaries, findPostgres() / findMariadb() return null and the tests skip, saying so.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { accessSync, chownSync, constants, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { freePort } from './free-port.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface DbServer {
  kind: 'postgres' | 'mysql';
  host: string;
  port: number;
  database: string;
  user: string;
  password: string;
  /** The app user's URL (a password given replaces the right one). */
  url(password?: string): string;
  /** Runs SQL as the app user on the test database; rows as arrays. */
  query(sql: string): Promise<unknown[][]>;
  /** The server's log so far (for a failing test's message). */
  log(): string;
  stop(): Promise<void>;
}

const executable = (p: string) => {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** The directory holding initdb and postgres (Debian: /usr/lib/postgresql/<major>/bin, not on PATH), or null. */
export function findPostgres(env: NodeJS.ProcessEnv = process.env): string | null {
  const dirs = env.PG_BIN ? [env.PG_BIN] : safeList('/usr/lib/postgresql').map((v) => `/usr/lib/postgresql/${v}/bin`);
  return dirs.find((d) => executable(join(d, 'initdb')) && executable(join(d, 'postgres'))) ?? null;
}

/** mariadbd and mariadb-install-db, or null. */
export function findMariadb(): { server: string; install: string } | null {
  const server = ['/usr/sbin/mariadbd', '/usr/bin/mariadbd'].find(executable);
  const install = ['/usr/bin/mariadb-install-db', '/usr/sbin/mariadb-install-db'].find(executable);
  return server && install ? { server, install } : null;
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir).sort().reverse();
  } catch {
    return [];
  }
}

const isRoot = () => process.getuid?.() === 0;

/** As root, the unprivileged user the servers run as; otherwise null (they run as the current user). */
function unprivileged(): { uid: number; gid: number; name: string } | null {
  if (!isRoot()) return null;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'nobody']).toString().trim());
  return { uid: id('-u'), gid: id('-g'), name: 'nobody' };
}

/** A temp dir the server's user owns. */
function ownDir(prefix: string, as: ReturnType<typeof unprivileged>): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (as) chownSync(dir, as.uid, as.gid);
  return dir;
}

function run(bin: string, args: string[], as: ReturnType<typeof unprivileged>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'], ...(as ? { uid: as.uid, gid: as.gid } : {}) });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${bin} exited ${code}:\n${out}`))));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `ok` every 100 ms until it resolves; rejects at the timeout or when the child died. */
async function until<T>(ok: () => Promise<T>, child: ChildProcess, timeoutMs: number, log: () => string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited ${child.exitCode}:\n${log()}`);
    try {
      return await ok();
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(`not ready within ${timeoutMs} ms (${(last as Error)?.message}):\n${log()}`);
    await sleep(100);
  }
}

async function stopChild(child: ChildProcess, signal: NodeJS.Signals, dir: string): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = once(child, 'exit');
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
  rmSync(dir, { recursive: true, force: true });
}

/** A password with characters a URL must encode, so scrubbing is tested on its encoded form too. */
const newPassword = () => `pw-${randomBytes(6).toString('hex')}/x+y%`;

export async function startPostgres(bin: string): Promise<DbServer> {
  const as = unprivileged();
  const dir = ownDir('plateau-pg-', as);
  const port = await freePort();
  const password = newPassword();
  const pwfile = join(dir, 'pw');
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (as) chownSync(pwfile, as.uid, as.gid);
  const data = join(dir, 'data');
  await run(
    join(bin, 'initdb'),
    [
      '-D',
      data,
      '-U',
      'plateau',
      '--auth=scram-sha-256',
      `--pwfile=${pwfile}`,
      '-E',
      'UTF8',
      '--no-sync',
      '--no-instructions',
    ],
    as,
  );
  const child = spawn(
    join(bin, 'postgres'),
    [
      '-D',
      data,
      '-h',
      '127.0.0.1',
      '-p',
      String(port),
      '-k',
      dir,
      '-c',
      'fsync=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'max_connections=20',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], ...(as ? { uid: as.uid, gid: as.gid } : {}) },
  );
  let log = '';
  child.stderr!.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-20_000)));
  const { default: pg } = await import('pg');
  const url = (db: string, pw = password) => `postgres://plateau:${encodeURIComponent(pw)}@127.0.0.1:${port}/${db}`;
  const query = async (db: string, sql: string) => {
    const c = new pg.Client({ connectionString: url(db), connectionTimeoutMillis: 5000 });
    c.on('error', () => {});
    await c.connect();
    try {
      return (await c.query({ text: sql, rowMode: 'array' })).rows;
    } finally {
      await c.end();
    }
  };
  const stop = () => stopChild(child, 'SIGINT', dir);
  try {
    await until(
      () => query('postgres', 'SELECT 1'),
      child,
      30_000,
      () => log,
    );
    await query('postgres', 'CREATE DATABASE plateau_test');
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    kind: 'postgres',
    host: '127.0.0.1',
    port,
    database: 'plateau_test',
    user: 'plateau',
    password,
    url: (pw) => url('plateau_test', pw),
    query: (sql) => query('plateau_test', sql),
    log: () => log,
    stop,
  };
}

export async function startMariadb(bins: { server: string; install: string }): Promise<DbServer> {
  const as = unprivileged();
  const dir = ownDir('plateau-mariadb-', as);
  const port = await freePort();
  const password = newPassword();
  const data = join(dir, 'data');
  const user = as ? [`--user=${as.name}`] : [];
  // a small redo log and no flushing: the test's data is thrown away (the default 96 MB log costs seconds to write)
  const light = [
    '--innodb-log-file-size=4M',
    '--innodb-buffer-pool-size=16M',
    '--innodb-flush-method=nosync',
    '--skip-innodb-doublewrite',
  ];
  await run(
    bins.install,
    [
      '--no-defaults',
      `--datadir=${data}`,
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
      ...user,
      ...light,
    ],
    null,
  );
  const socket = join(dir, 'sock');
  const child = spawn(
    bins.server,
    [
      '--no-defaults',
      `--datadir=${data}`,
      `--socket=${socket}`,
      `--port=${port}`,
      '--bind-address=127.0.0.1',
      ...user,
      '--skip-log-bin',
      '--skip-name-resolve',
      ...light,
      '--innodb-flush-log-at-trx-commit=0',
      '--max-connections=20',
      `--pid-file=${join(dir, 'pid')}`,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr!.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-20_000)));
  const mysql = await import('mysql2/promise');
  const as_root = async (sql: string) => {
    const c = await mysql.createConnection({ socketPath: socket, user: 'root' });
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  const url = (pw = password) => `mysql://plateau:${encodeURIComponent(pw)}@127.0.0.1:${port}/plateau_test`;
  const stop = () => stopChild(child, 'SIGTERM', dir);
  try {
    await until(
      () => as_root('SELECT 1'),
      child,
      30_000,
      () => log,
    );
    await as_root('CREATE DATABASE plateau_test');
    await as_root(`CREATE USER 'plateau'@'%' IDENTIFIED BY '${password.replace(/'/g, "''")}'`);
    await as_root("GRANT ALL ON plateau_test.* TO 'plateau'@'%'");
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    kind: 'mysql',
    host: '127.0.0.1',
    port,
    database: 'plateau_test',
    user: 'plateau',
    password,
    url,
    query: async (sql) => {
      const c = await mysql.createConnection({ uri: url(), connectTimeout: 5000 });
      try {
        const [rows] = await c.query({ sql, rowsAsArray: true });
        return Array.isArray(rows) ? (rows as unknown[][]) : [];
      } finally {
        await c.end();
      }
    },
    log: () => log,
    stop,
  };
}
