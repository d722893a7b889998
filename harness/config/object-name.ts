/**
 * The name an object literal is written under, for a position inside it: `mix: {`, `'mix': {` (a
 * property) and `mix = {` (a variable) name the object "mix". It tells a refusal whether a repeated
 * key is a mix's entry (refused-warnings.ts). A forward scan, not a parser: it steps over strings,
 * template literals, comments and regular expressions (a `/` after an operator or a keyword starts
 * one, after a value it divides), so that only code's brackets are counted.
 */

/** Where a `/` starts a regular expression rather than a division. */
const BEFORE_REGEX = new Set([
  'return',
  'typeof',
  'instanceof',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'case',
  'do',
  'else',
  'yield',
  'await',
]);
const OPERATOR = /[=!<>+\-*%&|^~?]/;
const WORD = /[\w$\u0080-\uffff]/;

interface Token {
  kind: 'word' | 'string' | 'regex' | 'punct';
  text: string;
}

interface Frame {
  /** '{', '(', '[', '`' (a template's text) or '${' (code inside a template). */
  open: string;
  name: string | null;
}

/**
 * The name of the innermost object literal around `offset` in `src` (a UTF-16 index), or null when
 * the innermost bracket there is not an object's, or its brace follows no `name:` or `name =`.
 */
export function objectNameAt(src: string, offset: number): string | null {
  const s: Scan = { src, i: 0, frames: [], last: null, prev: null };
  while (s.i < offset && s.i < src.length) {
    if (s.frames.at(-1)?.open === '`') templateText(s);
    else codeToken(s);
  }
  const top = s.frames.at(-1);
  return top?.open === '{' ? top.name : null;
}

interface Scan {
  src: string;
  i: number;
  frames: Frame[];
  /** The last two tokens of code, for a brace's name and a slash's meaning. */
  last: Token | null;
  prev: Token | null;
}

function push(s: Scan, t: Token): void {
  s.prev = s.last;
  s.last = t;
}

/** Steps over one token of code (or white space, or a comment), keeping the brackets' frames. */
function codeToken(s: Scan): void {
  const { src, i } = s;
  const c = src[i]!;
  const next = src[i + 1];
  if (/\s/.test(c)) s.i++;
  else if (c === '/' && next === '/') s.i = lineEnd(src, i);
  else if (c === '/' && next === '*') s.i = commentEnd(src, i);
  else if (c === '"' || c === "'") {
    s.i = stringEnd(src, i);
    push(s, { kind: 'string', text: src.slice(i + 1, s.i - 1) });
  } else if (c === '`') {
    s.frames.push({ open: '`', name: null });
    s.i++;
  } else if (c === '/' && regexMayStart(s.last)) {
    s.i = regexEnd(src, i);
    push(s, { kind: 'regex', text: '' });
  } else if (WORD.test(c)) s.i = run(s, WORD, 'word');
  else if (OPERATOR.test(c)) s.i = run(s, OPERATOR, 'punct');
  else {
    if (c === '{' || c === '(' || c === '[') s.frames.push({ open: c, name: c === '{' ? nameBefore(s) : null });
    else if (c === '}' || c === ')' || c === ']') s.frames.pop();
    push(s, { kind: 'punct', text: c });
    s.i++;
  }
}

/** A word, or a run of operator characters (`=`, `=>`, `===` apart), as one token; returns its end. */
function run(s: Scan, chars: RegExp, kind: Token['kind']): number {
  let j = s.i;
  while (j < s.src.length && chars.test(s.src[j]!)) j++;
  push(s, { kind, text: s.src.slice(s.i, j) });
  return j;
}

/** From inside a template's text to its closing '`' (a string token) or a '${' (code again). */
function templateText(s: Scan): void {
  const { src } = s;
  while (s.i < src.length) {
    if (src[s.i] === '\\') s.i += 2;
    else if (src[s.i] === '`') {
      s.frames.pop();
      s.i++;
      push(s, { kind: 'string', text: '' });
      return;
    } else if (src[s.i] === '$' && src[s.i + 1] === '{') {
      s.frames.push({ open: '${', name: null });
      s.i += 2;
      push(s, { kind: 'punct', text: '${' });
      return;
    } else s.i++;
  }
}

/** `name: {` or `name = {`: the word or string before the ':' or '='. */
function nameBefore({ last, prev }: Scan): string | null {
  if (last?.kind !== 'punct' || (last.text !== ':' && last.text !== '=')) return null;
  return prev && (prev.kind === 'word' || prev.kind === 'string') ? prev.text : null;
}

function regexMayStart(last: Token | null): boolean {
  if (!last) return true;
  if (last.kind === 'punct') return last.text !== ')' && last.text !== ']' && last.text !== '}';
  return last.kind === 'word' && BEFORE_REGEX.has(last.text);
}

function stringEnd(src: string, i: number): number {
  const quote = src[i];
  for (let j = i + 1; j < src.length; j++) {
    if (src[j] === '\\') j++;
    else if (src[j] === quote || src[j] === '\n') return j + 1;
  }
  return src.length;
}

function lineEnd(src: string, i: number): number {
  const end = src.indexOf('\n', i);
  return end < 0 ? src.length : end;
}

function commentEnd(src: string, i: number): number {
  const end = src.indexOf('*/', i + 2);
  return end < 0 ? src.length : end + 2;
}

/** Past a regular expression's closing '/' and its flags; a '/' inside [...] does not close it. */
function regexEnd(src: string, i: number): number {
  let inClass = false;
  let j = i + 1;
  for (; j < src.length && src[j] !== '\n'; j++) {
    if (src[j] === '\\') j++;
    else if (src[j] === '[') inClass = true;
    else if (src[j] === ']') inClass = false;
    else if (src[j] === '/' && !inClass) break;
  }
  j++;
  while (j < src.length && WORD.test(src[j]!)) j++;
  return j;
}
