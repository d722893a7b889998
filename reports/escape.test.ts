import { describe, expect, it } from 'vitest';
import { csvSafe, mdCell } from './escape.ts';

describe('mdCell', () => {
  it.each([
    ['a|b', 'a\\|b'],
    ['back\\slash', 'back\\\\slash'],
    ['line1\nline2\r\nline3', 'line1<br>line2<br>line3'],
    ['<script>alert(1)</script>', '&lt;script>alert(1)&lt;/script>'],
    ['<!-- x --><?php ?><![CDATA[y]]><http://x>', '&lt;!-- x -->&lt;?php ?>&lt;!\\[CDATA\\[y\\]\\]>&lt;http://x>'],
    ['lag 25.0 ms > 20 ms; 0.89 < 0.90; a <= b', 'lag 25.0 ms > 20 ms; 0.89 < 0.90; a <= b'],
    ['a & b', 'a & b'],
    ['&lt;script> &#60;b> &amp;', '&amp;lt;script> &amp;#60;b> &amp;amp;'],
    ['[x](javascript:y)', '\\[x\\](javascript:y)'],
    ['http_5xx', 'http\\_5xx'],
    ['plain 12.3 ms', 'plain 12.3 ms'],
  ])('%j -> %j', (input, expected) => {
    expect(mdCell(input)).toBe(expected);
  });

  it('leaves no raw pipe, newline or < that could open HTML', () => {
    const out = mdCell('x | y\n<img src=x onerror=alert(1)> \\| z </a> <!x <?y <Z');
    expect(out).not.toMatch(/(^|[^\\])\|/);
    expect(out).not.toMatch(/[\n\r]/);
    expect(out.replace(/<br>/g, '')).not.toMatch(/<[A-Za-z/!?]/);
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
