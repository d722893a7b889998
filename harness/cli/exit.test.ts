import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe('exitWhenFlushed', () => {
  it('exits only once a slow pipe has taken all of stdout (process.exit cut it at 64 KiB)', async () => {
    const bytes = 300_000;
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `import { exitWhenFlushed } from './harness/cli/exit.ts'; process.stdout.write('x'.repeat(${bytes})); exitWhenFlushed(3);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    // the reader starts late: the child's write fills the pipe and waits
    child.stdout.pause();
    await new Promise((r) => setTimeout(r, 800));
    let got = 0;
    child.stdout.on('data', (c: Buffer) => (got += c.length));
    child.stdout.resume();
    const code = await new Promise<number | null>((r) => child.on('close', r));
    expect([got, code]).toEqual([bytes, 3]);
  });
});
