/**
 * The secret scrubber's cost, against an earlier version of it on the same input: the text a run's
 * scrubber sees (buckets.ndjson lines, one a second, every tenth quoting a target's echo of a key
 * in the review's forms; k6's JSON output, scrubbed once its leg ended, in 64 KiB chunks of lines as
 * scrub-files.ts passes them), with the review's three keys and a token as the run's secrets.
 * Prints MiB/s of each version and the ratio of their times (medians of 7, interleaved).
 *   npx tsx scripts/bench/scrub.ts [--against <git rev>]   (default origin/main: the scrubber before the branch)
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { secretScrubber, type Scrub } from '../../harness/secret-scrub.ts';

const at = process.argv.indexOf('--against');
const rev = at > 0 ? process.argv[at + 1] : 'origin/main';

/** The scrubber as it was at `rev`, with the files beside it that it imports as they were then. */
async function scrubberAt(revision: string): Promise<typeof secretScrubber> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-bench-scrub-'));
  const show = (name: string) => execFileSync('git', ['show', `${revision}:harness/${name}`], { encoding: 'utf8' });
  const source = show('secret-scrub.ts');
  for (const [, name] of source.matchAll(/from '\.\/([\w-]+\.ts)'/g))
    fs.writeFileSync(path.join(dir, name), show(name));
  fs.writeFileSync(path.join(dir, 'secret-scrub.ts'), source);
  return ((await import(path.join(dir, 'secret-scrub.ts'))) as { secretScrubber: typeof secretScrubber })
    .secretScrubber;
}

const keys = ['Ab\\Cd"Ef/Gh+Ij=Kl', 'Qx7&mP2<vR9>tZ4', 'Zm9v+YmFy/c2VjcmV0LWtleQ=='];
const env = {
  REV_API_KEY: keys[0],
  OTHER_API_KEY: keys[1],
  THIRD_SECRET: keys[2],
  PLATEAU_TEST_TOKEN: 'tok-0123456789abcdef',
};
const declared = ['REV_API_KEY'];

/** The native run fixture's bucket lines, 200 copies; every tenth with samples quoting an echo in Go's style. */
function bucketLines(): string[] {
  const src = fs.readFileSync('test/fixtures/runs/native/buckets.ndjson', 'utf8').split('\n').filter(Boolean);
  const out: string[] = [];
  for (let c = 0; c < 200; c++) {
    src.forEach((line, i) => {
      if (i % 10 !== 0) return void out.push(line);
      const key = keys[(c + i) % keys.length];
      const body = JSON.stringify({ error: 'denied', key, url: `/echo?ok=1&for=${encodeURIComponent(key)}` });
      const go = body.replace(/[<>&]/g, (ch) => `\\u00${ch.charCodeAt(0).toString(16)}`);
      out.push(
        JSON.stringify({ ...JSON.parse(line), samples: [`check: denied: ${go}`, `other: ${'x'.repeat(280)}…`] }),
      );
    });
  }
  return out;
}

/** k6's JSON output of the stepped-queue fixture, cut into chunks of whole lines of about 64 KiB. */
function k6Chunks(): string[] {
  const text = zlib.gunzipSync(fs.readFileSync('test/fixtures/k6/stepped-queue.ndjson.gz')).toString('utf8');
  const chunks: string[] = [];
  for (let from = 0; from < text.length;) {
    const end = text.indexOf('\n', from + 65536);
    const to = end === -1 ? text.length : end + 1;
    chunks.push(text.slice(from, to));
    from = to;
  }
  return chunks;
}

function timeOnce(scrub: Scrub, texts: string[]): number {
  const t0 = process.hrtime.bigint();
  let n = 0;
  for (const t of texts) n += scrub(t).length;
  if (n < 0) throw new Error('unreachable');
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const before = (await scrubberAt(rev))(declared, env);
const after = secretScrubber(declared, env);
console.log(`secret scrubber: this tree against ${rev} (node ${process.version}, ${os.cpus().length} cpus)`);
for (const [name, texts] of [
  ['buckets.ndjson lines', bucketLines()],
  ["k6's JSON output, 64 KiB chunks", k6Chunks()],
] as const) {
  const mib = texts.reduce((s, t) => s + Buffer.byteLength(t), 0) / 2 ** 20;
  const leaks = texts.filter((t) => before(t) !== after(t)).length;
  for (let i = 0; i < 2; i++) (timeOnce(before, texts), timeOnce(after, texts)); // warm both
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < 7; i++) {
    a.push(timeOnce(before, texts));
    b.push(timeOnce(after, texts));
  }
  const [ma, mb] = [median(a), median(b)];
  console.log(
    `${name}: ${texts.length} texts, ${mib.toFixed(1)} MiB; before ${(mib / (ma / 1000)).toFixed(0)} MiB/s, ` +
      `after ${(mib / (mb / 1000)).toFixed(0)} MiB/s; time ratio after/before ${(mb / ma).toFixed(2)} ` +
      `(texts scrubbed differently: ${leaks})`,
  );
}
