/**
 * The reset stage's hooks: put the target's data back to a standard state before load, so a run
 * never measures what the previous run left behind. Three kinds: a shell command, an HTTP call,
 * SQL behind a guard.
 */
import { request } from 'undici';
import { PlateauError, EXIT } from '../errors.ts';
import type { ResetHook } from '../config/schema.ts';
import { runSqlHook } from './sql-hook.ts';
import { killShellGroup, spawnShellGroup } from '../shell-group.ts';

/** Runs one hook and returns its line of evidence; `index` (0-based) names it in messages. */
export async function runHook(
  hook: ResetHook,
  targetUrl: string,
  env: NodeJS.ProcessEnv = process.env,
  index = 0,
): Promise<string> {
  switch (hook.kind) {
    case 'command':
      return runCommand(hook.run, hook.timeoutS);
    case 'http':
      return runHttp(hook, targetUrl);
    case 'sql':
      return (await runSqlHook(hook, env, `reset hook ${index + 1} (sql, ${hook.driver})`)).line;
  }
}

async function runHttp(hook: Extract<ResetHook, { kind: 'http' }>, targetUrl: string): Promise<string> {
  const url = new URL(hook.url, targetUrl).href;
  let status: number;
  let text: string;
  try {
    const res = await request(url, {
      method: hook.method as 'POST',
      body: hook.body,
      headers: hook.body ? { 'content-type': 'application/json' } : {},
      headersTimeout: hook.timeoutS * 1000,
      bodyTimeout: hook.timeoutS * 1000,
    });
    status = res.statusCode;
    text = (await res.body.text()).slice(0, 500);
  } catch (err) {
    throw new PlateauError(
      `reset ${hook.method} ${url} failed: ${(err as Error).message}`,
      'check reset.hooks[].url and that the target is up',
      'reset-http',
      EXIT.preflight,
    );
  }
  if (status !== hook.expectStatus) {
    throw new PlateauError(
      `reset ${hook.method} ${url} answered ${status}, expected ${hook.expectStatus}: ${text}`,
      'fix the reset endpoint or reset.hooks[].expectStatus',
      'reset-http',
      EXIT.preflight,
    );
  }
  return `http ${hook.method} ${new URL(url).pathname} answered ${status}: ${text.replace(/\s+/g, ' ')}`;
}

function runCommand(cmd: string, timeoutS: number): Promise<string> {
  return new Promise((resolve, reject) => {
    // its own process group, killed whole at the timeout: a child of sh's (`sleep 99 | cat`) kept the pipes, and the wait, open
    const child = spawnShellGroup(cmd);
    let out = '';
    const keep = (b: Buffer) => {
      out = (out + b.toString()).slice(-2000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => killShellGroup(child.pid), timeoutS * 1000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(
        new PlateauError(
          `reset command \`${cmd}\` could not be started: ${e.message}`,
          'check that sh runs here',
          'reset-command',
          EXIT.preflight,
        ),
      );
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const tail = out.trim().split('\n').slice(-3).join(' | ');
      if (code === 0) resolve(`command exited 0${tail ? `: ${tail}` : ''}`);
      else
        reject(
          new PlateauError(
            `reset command \`${cmd}\` ${signal ? `was killed (${signal}, timeout ${timeoutS} s)` : `exited ${code}`}: ${tail}`,
            'fix the command in reset.hooks[].run (it must exit 0)',
            'reset-command',
            EXIT.preflight,
          ),
        );
    });
  });
}
