/**
 * A scenario's data files at size (issue 27: "a 100 MB file costs one copy per thread at most"):
 * writes a CSV of about N MB (quoted fields with commas among them) and a JSON array of the same
 * rows, then loads each through loadDataSources, the path every engine thread takes, in a child
 * process of its own, and prints the load time and the heap it keeps against the file's size. The
 * peer is the JSON source (V8's own JSON.parse) on the same rows in the same run: ratios, no bounds.
 *   node --import tsx scripts/bench/data-load.ts [megabytes=100] [rounds=3]
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadDataSources } from '../../harness/scenario/data-load.ts';

const HERE = fileURLToPath(import.meta.url);

interface Reading {
  kind: 'csv' | 'json';
  rows: number;
  fileMiB: number;
  loadMs: number;
  heapMiB: number;
}

/** In the child: loads one file and prints its Reading as one JSON line. */
function measure(kind: 'csv' | 'json', file: string): void {
  globalThis.gc!();
  const before = process.memoryUsage().heapUsed;
  const t0 = performance.now();
  const data = loadDataSources(path.join(path.dirname(file), 'scenario.ts'), { d: { [kind]: file } as never }, 1);
  const loadMs = performance.now() - t0;
  globalThis.gc!();
  const heap = process.memoryUsage().heapUsed - before;
  const r: Reading = {
    kind,
    rows: data.d.rows.length,
    fileMiB: fs.statSync(file).size / 2 ** 20,
    loadMs,
    heapMiB: heap / 2 ** 20,
  };
  console.log(JSON.stringify(r));
}

function write(dir: string, megabytes: number): { csv: string; json: string } {
  const csv = path.join(dir, 'rows.csv');
  const json = path.join(dir, 'rows.json');
  const lines = ['id,name,email,note'];
  const objs: string[] = [];
  for (let i = 0, bytes = 0; bytes < megabytes * 1e6; i++) {
    const note = `a note, with a comma ${i} and "quotes"`;
    const l = `${i},user ${i},user${i}@example.com,"${note.replaceAll('"', '""')}"`;
    lines.push(l);
    objs.push(JSON.stringify({ id: String(i), name: `user ${i}`, email: `user${i}@example.com`, note }));
    bytes += l.length + 1;
  }
  fs.writeFileSync(csv, lines.join('\n') + '\n');
  fs.writeFileSync(json, `[${objs.join(',\n')}]`);
  return { csv, json };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

if (process.argv[2] === '--child') {
  measure(process.argv[3] as 'csv' | 'json', process.argv[4]);
} else {
  const megabytes = Number(process.argv[2] ?? 100);
  const rounds = Number(process.argv[3] ?? 3);
  if (!(megabytes > 0) || !(rounds >= 1)) {
    console.error('data-load: pass a positive size in megabytes and a number of rounds (>= 1)');
    process.exit(2);
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-data-bench-'));
  try {
    const files = write(dir, megabytes);
    const got: Record<'csv' | 'json', Reading[]> = { csv: [], json: [] };
    for (let r = 0; r < rounds; r++)
      for (const kind of ['csv', 'json'] as const) {
        const out = execFileSync(
          process.execPath,
          ['--expose-gc', '--max-old-space-size=8192', '--import', 'tsx', HERE, '--child', kind, files[kind]],
          { encoding: 'utf8' },
        );
        got[kind].push(JSON.parse(out.trim().split('\n').at(-1)!) as Reading);
      }
    for (const kind of ['csv', 'json'] as const) {
      const rs = got[kind];
      const heap = median(rs.map((r) => r.heapMiB));
      console.log(
        `${kind.padEnd(4)} ${rs[0].rows} rows, ${rs[0].fileMiB.toFixed(1)} MiB: load ${median(rs.map((r) => r.loadMs)).toFixed(0)} ms, heap kept ${heap.toFixed(0)} MiB (${(heap / rs[0].fileMiB).toFixed(2)} x the file), median of ${rounds}`,
      );
    }
    const ratio = (f: (r: Reading) => number) => median(got.csv.map(f)) / median(got.json.map(f));
    console.log(
      `csv / json: load time ${ratio((r) => r.loadMs).toFixed(2)} x, heap kept per row ${ratio((r) => r.heapMiB / r.rows).toFixed(2)} x`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
