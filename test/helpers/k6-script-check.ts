/**
 * A generated k6 script type-checked as JavaScript against @types/k6 (checkJs), as k6 would load
 * it. esbuild writes `// <source path>` above each module's code; only the k6 side is judged: the
 * runtime (harness/k6/runtime/) and the entry (imports, options, the default export) are what
 * touch k6's API. The scenario and the pure modules bundled beside them are type-checked as
 * TypeScript by tsc; their types are erased here, so checkJs would infer unions they never have.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';

const SECTION = /^\/\/ (\S+\.[jt]s)$/;

/** The source module the code at `pos` of the bundle came from ('' before the first). */
export function sectionAt(text: string, pos: number): string {
  const lines = text.slice(0, pos).split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const m = SECTION.exec(lines[i]);
    if (m) return m[1];
  }
  return '';
}

export function isK6Side(section: string): boolean {
  return section.startsWith('harness/k6/runtime/') || section === 'plateau-k6-entry.js';
}

/** The k6 side's diagnostics, each as "<section>: <message>"; [] when it type-checks. */
export function k6ScriptDiagnostics(text: string): string[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plateau-k6-tsc-'));
  try {
    const file = path.join(dir, 'script.js');
    fs.writeFileSync(file, text);
    const program = ts.createProgram([file], {
      allowJs: true,
      checkJs: true,
      noEmit: true,
      strict: false,
      target: ts.ScriptTarget.ES2020,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      types: ['k6'],
      typeRoots: [path.resolve('node_modules/@types')],
      lib: ['lib.es2020.d.ts'],
    });
    return ts
      .getPreEmitDiagnostics(program)
      .map((d) => ({ d, section: d.start === undefined ? '' : sectionAt(text, d.start) }))
      .filter(({ d, section }) => d.start === undefined || isK6Side(section))
      .map(({ d, section }) => `${section}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
