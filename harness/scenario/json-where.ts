/**
 * Places in JSON text, for messages: where JSON.parse failed and where an array's element begins.
 * V8 gives a position for some syntax errors only ("Unexpected token '}', "...x}]..." is not valid
 * JSON" has none, and quotes the text, line breaks and all), so this scanner walks the text itself.
 * It runs only once a file has failed (JSON.parse does the parsing), and keeps the open brackets
 * in an array, not in recursion, so no nesting depth can overflow the stack. Pure, no Node API, and
 * no Array.prototype.at: the k6 bundle type-checks it against an older library.
 */

/** Where the text stops being JSON (0-based index into the text) and what is wrong there. */
export interface JsonSyntax {
  index: number;
  problem: string;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES = '"\\/bfnrt';

/** The 1-based line and column (in characters) of text[index]. */
export function lineColumn(text: string, index: number): { line: number; column: number } {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return { line, column: index - (text.lastIndexOf('\n', index - 1) + 1) + 1 };
}

/** What text[i] is, for a message: the character quoted, or the end. */
function found(text: string, i: number): string {
  return i >= text.length ? 'the end of the file' : JSON.stringify(text[i]);
}

function skipSpace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) return i;
    i++;
  }
}

/** The index after the string that opens at text[i] (a '"'), or its problem. */
function string(text: string, i: number): number | JsonSyntax {
  for (i++; ; i++) {
    if (i >= text.length) return { index: i, problem: 'a string is never closed (expected ")' };
    const c = text.charCodeAt(i);
    if (c === 34) return i + 1;
    if (c < 32) return { index: i, problem: 'a line break or control character inside a string (write it as \\n)' };
    if (c !== 92) continue;
    const e = text[++i];
    if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) i += 4;
    else if (e === undefined || !ESCAPES.includes(e)) return { index: i - 1, problem: 'a bad escape in a string' };
  }
}

/** The index after the scalar value (string, number, true, false, null) at text[i], or its problem. */
function scalar(text: string, i: number): number | JsonSyntax {
  if (text[i] === '"') return string(text, i);
  for (const w of ['true', 'false', 'null']) if (text.startsWith(w, i)) return i + w.length;
  NUMBER.lastIndex = i;
  if (NUMBER.test(text)) return NUMBER.lastIndex;
  return { index: i, problem: `expected a value, found ${found(text, i)}` };
}

/**
 * Walks the JSON text. `onElement(k, index)` is told where each element of the top-level array
 * begins and may stop the walk (returns true). Returns the first syntax problem, or null.
 */
export function scanJson(text: string, onElement?: (k: number, index: number) => boolean): JsonSyntax | null {
  const closers: string[] = []; // the brackets open at this point, innermost last, as their closers
  let elements = 0;
  let i = skipSpace(text, 0);
  for (;;) {
    // a value is expected at i
    if (closers.length === 1 && closers[0] === ']' && onElement?.(elements++, i)) return null;
    const open = text[i];
    if (open === '[' || open === '{') {
      closers.push(open === '[' ? ']' : '}');
      i = skipSpace(text, i + 1);
      if (text[i] === closers[closers.length - 1]) {
        closers.pop();
        i++;
      } else if (open === '[') continue;
      else {
        const k = key(text, i);
        if (typeof k !== 'number') return k;
        i = k;
        continue;
      }
    } else {
      const end = scalar(text, i);
      if (typeof end !== 'number') return end;
      i = end;
    }
    // a value ended: close brackets, or go on to the next element or member
    for (;;) {
      i = skipSpace(text, i);
      const closer = closers[closers.length - 1];
      if (closer === undefined)
        return i < text.length ? { index: i, problem: `text after the JSON value, found ${found(text, i)}` } : null;
      if (text[i] === closer) {
        closers.pop();
        i++;
        continue;
      }
      if (text[i] !== ',') return { index: i, problem: `expected ',' or '${closer}', found ${found(text, i)}` };
      i = skipSpace(text, i + 1);
      if (closer === '}') {
        const k = key(text, i);
        if (typeof k !== 'number') return k;
        i = k;
      }
      break;
    }
  }
}

/** Where element k (0-based) of the top-level array begins in the text, or -1. */
export function elementAt(text: string, k: number): number {
  let at = -1;
  scanJson(text, (j, index) => {
    if (j === k) at = index;
    return j === k;
  });
  return at;
}

/** The index of the value after the member name at text[i] and its colon, or the problem. */
function key(text: string, i: number): number | JsonSyntax {
  if (text[i] !== '"') return { index: i, problem: `expected a member name in double quotes, found ${found(text, i)}` };
  const end = string(text, i);
  if (typeof end !== 'number') return end;
  i = skipSpace(text, end);
  if (text[i] !== ':') return { index: i, problem: `expected ':' after a member name, found ${found(text, i)}` };
  return skipSpace(text, i + 1);
}
