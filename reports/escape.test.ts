import { describe, expect, it } from 'vitest';
import { csvSafe, mdCell } from './escape.ts';

describe('mdCell', () => {
  it.each([
    ['a|b', 'a\\|b'],
    ['back\\slash', 'back\\\\slash'],
    ['line1\nline2\r\nline3', 'line1<br>line2<br>line3'],
    ['<script>alert(1)</script>', '&lt;script&gt;alert(1)&lt;/script&gt;'],
    ['a & b', 'a &amp; b'],
    ['[x](javascript:y)', '\\[x\\](javascript:y)'],
    ['http_5xx', 'http\\_5xx'],
    ['plain 12.3 ms', 'plain 12.3 ms'],
  ])('%j -> %j', (input, expected) => {
    expect(mdCell(input)).toBe(expected);
  });

  it('leaves no raw pipe, newline or angle bracket', () => {
    const out = mdCell('x | y\n<img src=x onerror=alert(1)> \\| z');
    expect(out).not.toMatch(/(^|[^\\])\|/);
    expect(out).not.toMatch(/[\n\r]/);
    expect(out.replace(/<br>/g, '')).not.toMatch(/[<>]/);
  });
});

describe('csvSafe', () => {
  it.each([
    ['=cmd|"/c calc"!A1', `'=cmd|"/c calc"!A1`],
    ['+1', "'+1"],
    ['-2', "'-2"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tx', "'\tx"],
    ['\rx', "'\rx"],
    ['holds', 'holds'],
    ['a=b', 'a=b'],
  ])('%j -> %j', (input, expected) => {
    expect(csvSafe(input)).toBe(expected);
  });
});
