/**
 * docs/config.md is generated from the schema: the committed file must be what the generator
 * writes, and every field must carry a description for it to show.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { CONFIG_DOC_PATH, fieldRows, renderConfigDoc, STALE_MESSAGE } from './config-doc.ts';
import { unitOf } from './introspect.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('docs/config.md', () => {
  it('is what scripts/config-doc.ts writes', () => {
    const file = path.join(ROOT, CONFIG_DOC_PATH);
    const committed = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    // one clear line instead of a diff of two long documents
    if (committed !== renderConfigDoc()) expect.fail(STALE_MESSAGE);
  });

  it('documents every field with a description', () => {
    const rows = fieldRows();
    expect(rows.length).toBeGreaterThan(80);
    expect(rows.filter((r) => r.description === '').map((r) => r.path)).toEqual([]);
  });

  it.each<[string, string, string, string]>([
    ['steps.holdS', 'number > 0', 'seconds', 'required, e.g. 30'],
    ['steps.startPerSec', 'number > 0', 'per second', 'required, e.g. 50'],
    ['http.timeoutMs', 'number > 0 and <= 2147483647', 'milliseconds', '10000'],
    ['rules.deliveryMin', 'number > 0 and <= 1', 'share of 1', '0.9'],
    ['warmup.minS', 'number >= 0', 'seconds', '0'],
    ['engine', 'one of "native", "k6"', '', '"native"'],
    ['vus', 'section', '', "its fields' defaults"],
    ['reset.hooks[] (kind: "sql").guard.databasePattern', 'non-empty string', '', 'required, e.g. "^staging-"'],
  ])('%s: %s, unit %j, default %s', (field, type, unit, dflt) => {
    expect(fieldRows().find((r) => r.path === field)).toMatchObject({ type, unit, default: dflt });
  });

  it("documents the fields of a list of sections (a user-test found metrics.downstreams' missing)", () => {
    const paths = fieldRows().map((r) => r.path);
    for (const p of ['metrics.downstreams[].name', 'metrics.downstreams[].ops', 'metrics.downstreams[].splitBy'])
      expect(paths).toContain(p);
  });

  it('a stale file is named with the command that regenerates it', () => {
    const other = z.strictObject({ onlyS: z.number().describe('a field the committed file lacks') });
    expect(renderConfigDoc(other)).not.toBe(renderConfigDoc());
    expect(renderConfigDoc(other)).toContain(
      '| `onlyS` | number | seconds | required | a field the committed file lacks |',
    );
    expect(STALE_MESSAGE).toBe('docs/config.md is stale: run npx tsx scripts/config-doc.ts');
  });
});

describe('the unit comes from the name', () => {
  it.each<[string, string | undefined]>([
    ['holdS', 'seconds'],
    ['timeoutMs', 'milliseconds'],
    ['ratePerSec', 'per second'],
    ['samples', undefined],
    ['stableWindows', undefined],
    ['S', undefined],
  ])('%s', (key, unit) => {
    expect(unitOf(key)).toBe(unit);
  });
});
