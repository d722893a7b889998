/** objectNameAt: the name an object literal is written under, past what only looks like a brace. */
import { describe, expect, it } from 'vitest';
import { objectNameAt } from './object-name.ts';

/** The name at the one `@` in the source (the `@` itself taken out). */
const nameAt = (marked: string) => objectNameAt(marked.replace('@', ''), marked.indexOf('@'));

describe('objectNameAt', () => {
  it.each<[string, string, string | null]>([
    ['a property', 'defineScenario({ mix: { a: 1, @a: 2 } })', 'mix'],
    ['a quoted property', "({ 'mix': { @a: 1 } })", 'mix'],
    ['a variable', 'const mix = { @a: 1 };', 'mix'],
    ['an object inside an entry of the mix', '({ mix: { a: { headers: { @x: 1 } } } })', 'headers'],
    ['back in the mix after an entry', '({ mix: { a: { w: 1 }, @b: 2 } })', 'mix'],
    ['an object with no name', 'f({ @a: 1 })', null],
    ['an arrow body', 'const mix = () => { @a; }', null],
    ['an object compared with ==', 'x == { @a: 1 }', null],
    ['inside parentheses in the mix', '({ mix: { a: f(@1) } })', null],
    ['braces in strings', '({ mix: { a: \'}}\', b: "{", @c: 1 } })', 'mix'],
    ['a brace in a comment', '({ mix: { // }\n /* } */ @a: 1 } })', 'mix'],
    ['a template with code in it', "({ mix: { a: `}${ { x: '}' }.x }}`, @b: 1 } })", 'mix'],
    ['a template in a template', "({ mix: { a: `${`${'}'}`}`, @b: 1 } })", 'mix'],
    ['a regular expression with braces', '({ mix: { a: /}[/}]/g.test(s), @b: 1 } })', 'mix'],
    ['a division, then a regular expression', '({ mix: { a: x / 2, b: (y) / 3, c: f(/{/), @d: 1 } })', 'mix'],
    ['a regular expression after return', 'function f() { return /}/ }\nconst mix = { @a: 1 }', 'mix'],
    ['an escaped quote', "({ mix: { a: 'it\\'s }', @b: 1 } })", 'mix'],
    ['a TypeScript type with braces', '({ mix: { a: (c: { s: number }) => c.s, @b: 1 } })', 'mix'],
  ])('%s', (_, marked, name) => {
    expect(nameAt(marked)).toBe(name);
  });
});
