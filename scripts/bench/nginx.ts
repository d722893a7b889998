/**
 * The target: nginx with one worker process on 127.0.0.1, answering every path with a tiny static
 * 200, access log off, keep-alive effectively unbounded. Its own config, pid and error log live in
 * a temp directory; it runs in the foreground as the bench's child and is stopped at the end.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export function nginxConfig(dir: string, port: number): string {
  return `# written by scripts/bench/nginx.ts
user root;
worker_processes 1;
worker_rlimit_nofile 16384;
daemon off;
master_process on;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
# above plateau's limits.maxInFlight (10,000 VUs, one connection each): with fewer, nginx closes
# idle keep-alive connections under load and the generator reads resets
events { worker_connections 12000; multi_accept on; }
http {
  access_log off;
  keepalive_requests 100000000;
  keepalive_timeout 120s;
  client_body_temp_path ${dir}/body;
  server_tokens off;
  server {
    listen 127.0.0.1:${port} backlog=4096 reuseport;
    location / { default_type text/plain; return 200 "ok\\n"; }
  }
}
`;
}

export interface Nginx {
  url: string;
  stop(): Promise<void>;
  pid: number | undefined;
  workerPid(): number | null;
}

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port }, () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });
}

/** Starts nginx in the foreground on 127.0.0.1:port with `config` (the bench's by default), its files in `dir`. */
export async function startNginx(
  bin: string,
  dir: string,
  port: number,
  config: string = nginxConfig(dir, port),
): Promise<Nginx> {
  if (await portAnswers(port)) throw new Error(`127.0.0.1:${port} is already taken; pass --port`);
  const conf = path.join(dir, 'nginx.conf');
  fs.writeFileSync(conf, config);
  const child: ChildProcess = spawn(bin, ['-p', dir, '-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    err += d;
  });
  const exited = new Promise<void>((r) => child.on('close', () => r()));
  for (let i = 0; i < 50; i++) {
    if (child.exitCode !== null)
      throw new Error(
        `nginx exited at start: ${err}${fs.existsSync(`${dir}/error.log`) ? fs.readFileSync(`${dir}/error.log`, 'utf8') : ''}`,
      );
    if (await portAnswers(port)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  if (!(await portAnswers(port))) {
    child.kill('SIGKILL');
    throw new Error('nginx did not answer within 5 s');
  }
  return {
    url: `http://127.0.0.1:${port}/`,
    pid: child.pid,
    workerPid() {
      // nginx's single worker: the master's only child.
      try {
        const kids = fs
          .readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8')
          .trim()
          .split(/\s+/)
          .filter(Boolean);
        return kids.length ? Number(kids[0]) : null;
      } catch {
        return null;
      }
    },
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(t);
    },
  };
}
