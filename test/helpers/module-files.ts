/** Files of a user's module (a config, a scenario) written outside the repository, and the check of a refusal to load one. */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { PlateauError, EXIT } from '../../harness/errors.ts';

/** Writes files under a fresh folder of root (its name made path-safe) and returns the folder. */
export function moduleFolder(root: string, name: string, files: Record<string, string>): string {
  const dir = path.join(root, name.replace(/\W+/g, '-'));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

/** load(file) must fail with a usage PlateauError naming the file, in one line, with a fix. */
export async function expectRefusal(load: (file: string) => Promise<unknown>, file: string): Promise<PlateauError> {
  const err = await load(file).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PlateauError);
  const p = err as PlateauError;
  expect(p.exitCode).toBe(EXIT.usage);
  expect(p.message).toContain(file);
  expect(p.message).not.toContain('\n');
  expect(p.hint.length).toBeGreaterThan(0);
  return p;
}
