/**
 * Ingest speed and memory of k6 JSON output: the real stepped-queue run (84k samples) is replayed
 * N times back to back with its timestamps shifted (so the file is one long run, as a long test
 * would write it), streamed through the same path `plateau import k6` uses, and the points/s and
 * RSS (at start, at each quarter, at the end) printed. Flat RSS as the file grows is the claim.
 *   node --expose-gc --import tsx scripts/bench/k6-ingest.ts [copies=40]   (BENCH_GC=1: force a GC at each quarter, so RSS shows live memory, not lazy collection)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { ingestLines } from '../../harness/k6/output/ingest.ts';
import { readLines } from '../../harness/k6/output/lines.ts';

const copies = Number(process.argv[2] ?? 40);
const src = zlib
  .gunzipSync(fs.readFileSync('test/fixtures/k6/stepped-queue.ndjson.gz'))
  .toString('utf8')
  .split('\n')
  .filter(Boolean);
const SPAN_MS = 51_000;
const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-bench-')), 'long.ndjson');
const fd = fs.openSync(file, 'w');
for (let c = 0; c < copies; c++) {
  const shift = c * SPAN_MS;
  const out = src.map((l) =>
    l.replace(
      /"time":"([^"]+)"/,
      (_m, t: string) => `"time":"${new Date(Date.parse(t) + shift).toISOString().slice(0, 19)}${t.slice(19)}"`,
    ),
  );
  fs.writeSync(fd, out.join('\n') + '\n');
}
fs.closeSync(fd);
src.length = 0;
const sizeMiB = fs.statSync(file).size / 2 ** 20;
const mib = () => (process.memoryUsage().rss / 2 ** 20).toFixed(0);

globalThis.gc?.();
await new Promise((r) => setTimeout(r, 200));
const rssStart = mib();
const rssAt: string[] = [];
let buckets = 0;
const t0 = performance.now();
const cpu0 = process.cpuUsage();
const r = await ingestLines(readLines(file), {
  source: 'k6',
  phase: 'steps',
  lateS: 5,
  sink: () => {
    if (++buckets % Math.floor((copies * 51) / 4) === 0) {
      if (process.env.BENCH_GC) globalThis.gc?.();
      rssAt.push(`${mib()} (heap ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)})`);
    }
  },
});
const s = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
const cpuS = (cpu.user + cpu.system) / 1e6;
console.log(
  `k6 JSON ingest: ${r.stats.points.toLocaleString('en-US')} points (${r.lines.toLocaleString('en-US')} lines, ${sizeMiB.toFixed(0)} MiB, ${r.stats.buckets} one-second buckets) in ${s.toFixed(2)} s`,
);
console.log(
  `  ${Math.round(r.stats.points / s).toLocaleString('en-US')} points/s, ${(sizeMiB / s).toFixed(0)} MiB/s; CPU ${cpuS.toFixed(2)} s (all threads), ${Math.round(r.stats.points / cpuS).toLocaleString('en-US')} points per CPU-second (less sensitive to other load than points/s)`,
);
console.log(
  `  RSS MiB: start ${rssStart}, quarters ${rssAt.join(' / ')}, end ${mib()}  (node ${process.version}, ${os.cpus()[0]?.model ?? '?'})`,
);
fs.rmSync(path.dirname(file), { recursive: true, force: true });
