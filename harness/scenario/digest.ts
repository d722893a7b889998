/**
 * A digest of a scenario's own code and data, recorded in run.json (`scenarioDigest`) so that two
 * runs of different code under one name are told apart (analysis/compare/differences.ts): the
 * files its bundle compiles in (the module and what it imports by relative path, each by its path
 * relative to the module's folder and its bytes) and its data files (each by its source's name and
 * bytes). Not the bundle itself: it holds the module's absolute path (__dirname, its require), so
 * one scenario checked out in two folders (a laptop, CI) would read as two. Not 'plateau' nor the
 * packages it imports: their versions are the environment's (environment.plateau).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { moduleInputs } from '../config/evaluate.ts';
import type { LoadedSource } from './context.ts';
import { SCENARIO_MODULE } from './load.ts';

/** Hex digits kept: 48 bits, ample to tell two versions of one scenario apart, short enough to read in a warning. */
const DIGEST_HEX = 12;

const sha256 = (x: string | Buffer) => createHash('sha256').update(x).digest('hex');

/** "sha256:0c4f1e9a7b2d" of the scenario module at `abs` with its loaded data sources. */
export async function scenarioDigest(abs: string, data: Record<string, LoadedSource>): Promise<string> {
  const dir = path.dirname(abs);
  // '/' whatever the platform: one checkout on Windows and one on Linux are one scenario
  const rel = (f: string) => path.relative(dir, f).split(path.sep).join('/');
  const code = (await moduleInputs(abs, SCENARIO_MODULE)).map((f) => `code ${rel(f)} ${sha256(fs.readFileSync(f))}`);
  const rows = Object.entries(data).map(([name, src]) => `data ${name} ${sha256(fs.readFileSync(src.file))}`);
  const lines = [...code, ...rows].sort();
  return `sha256:${sha256(lines.join('\n')).slice(0, DIGEST_HEX)}`;
}
