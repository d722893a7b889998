/**
 * Writes docs/config.md from the config schema (harness/config/config-doc.ts):
 *   npx tsx scripts/config-doc.ts          write it
 *   npx tsx scripts/config-doc.ts --check  exit 1 when the committed file is stale
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONFIG_DOC_PATH, renderConfigDoc, STALE_MESSAGE } from '../harness/config/config-doc.ts';

const file = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', CONFIG_DOC_PATH);
const text = renderConfigDoc();
if (process.argv.includes('--check')) {
  const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  if (current !== text) {
    console.error(STALE_MESSAGE);
    process.exit(1);
  }
} else {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  console.log(`wrote ${CONFIG_DOC_PATH} (${text.split('\n').length - 1} lines)`);
}
