/**
 * topology.command: a shell command that prints the target's replica (or instance) count. Each
 * reading either gives a number or says why not (the command's exit status and the end of its
 * stderr, what it printed instead of a number, or that it did not finish), so preflight can refuse
 * a command that cannot be read before any load, and a reading that fails later is said rather
 * than silently taken as "no change". The command runs in its own process group, killed whole
 * when it overruns (shell-group.ts).
 */
import { killShellGroup, spawnShellGroup } from '../shell-group.ts';

/** The longest a reading may take: readings are due every topology.everyS (>= 1 s), edges too. */
export const TOPOLOGY_COMMAND_TIMEOUT_MS = 5000;

/** What the command said, at most: a count is a few characters; the rest is only for the message. */
const KEEP_CHARS = 2000;
/** The most of its output a message quotes. */
const QUOTE_CHARS = 120;

export type TopologyReading = { value: number } | { problem: string };

export function readTopologyCommand(cmd: string, timeoutMs = TOPOLOGY_COMMAND_TIMEOUT_MS): Promise<TopologyReading> {
  return new Promise((resolve) => {
    const child = spawnShellGroup(cmd);
    let out = '';
    let err = '';
    let timedOut = false;
    child.stdout.on('data', (b: Buffer) => (out = (out + b.toString()).slice(0, KEEP_CHARS)));
    child.stderr.on('data', (b: Buffer) => (err = (err + b.toString()).slice(-KEEP_CHARS)));
    const timer = setTimeout(() => {
      timedOut = true;
      killShellGroup(child.pid);
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({ problem: `\`${cmd}\` could not be started: ${e.message}` });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (timedOut) resolve({ problem: `\`${cmd}\` did not finish within ${timeoutMs / 1000} s (killed)` });
      else if (code !== 0) {
        const why = signal ? `was killed (${signal})` : `exited ${code}`;
        resolve({ problem: `\`${cmd}\` ${why}${quoted(err, 'stderr') || quoted(out, 'printed')}` });
      } else resolve(countOf(cmd, out));
    });
  });
}

/** One number >= 0 on stdout (surrounding white space allowed), or why not. */
function countOf(cmd: string, out: string): TopologyReading {
  const text = out.trim();
  const value = text === '' ? NaN : Number(text);
  if (Number.isFinite(value) && value >= 0) return { value };
  return {
    problem: `\`${cmd}\` ${text === '' ? 'printed nothing' : `printed ${JSON.stringify(clip(text))}`}, not one number >= 0`,
  };
}

function quoted(text: string, what: string): string {
  const t = text.trim();
  return t === '' ? '' : `; ${what}: ${JSON.stringify(clip(t.split('\n').slice(-3).join(' | ')))}`;
}

function clip(t: string): string {
  return t.length > QUOTE_CHARS ? `${t.slice(0, QUOTE_CHARS)}...` : t;
}

/** The fix a problem of topology.command's points to. */
export const TOPOLOGY_COMMAND_FIX =
  'make topology.command print one number (the replica count, e.g. kubectl get deploy app -o jsonpath={.status.readyReplicas}), exit 0 and finish within 5 s; run it by hand in the shell plateau runs in, or remove the topology section';
