/**
 * The llhttp response parser on its own: every split of a response across reads gives the same
 * result, Keep-Alive is found without header strings, responses that follow one another in a read
 * are told apart, and what llhttp refuses is refused.
 */
import { describe, expect, it } from 'vitest';
import { MAX_HEADER_BYTES, ResponseParser, wasmMemoryBytes, type ResponseHandler } from './llhttp.ts';

interface Seen {
  status: number;
  headers: string[] | null;
  keepAlive: boolean;
  ka: string | null;
  body: number;
  /** The body's bytes (latin1), copied out of the view each call gets. */
  text: string;
  more: boolean;
}

function recorder(keepHeaders: boolean, skipBody = false) {
  const done: Seen[] = [];
  const errors: { message: string; code: string }[] = [];
  let cur: Seen | null = null;
  const h: ResponseHandler = {
    onResponseHeaders(status, headers, keepAlive, ka) {
      cur = { status, headers: headers ? [...headers] : null, keepAlive, ka, body: 0, text: '', more: false };
      return skipBody;
    },
    onResponseBody(src, at, n) {
      cur!.body += n;
      cur!.text += src.toString('latin1', at, at + n);
    },
    onResponseComplete(more) {
      done.push({ ...cur!, more });
    },
    onResponseError(err) {
      errors.push({ message: err.message, code: err.code });
    },
  };
  const parser = new ResponseParser(h, keepHeaders);
  return {
    parser,
    done,
    errors,
    feed: (s: string | Buffer) => {
      const b = Buffer.from(s as string, 'latin1');
      parser.execute(b, b.length);
    },
  };
}

const NGINX =
  'HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Type: text/plain\r\nContent-Length: 3\r\nConnection: keep-alive\r\nKEEP-alive: timeout=5, max=100\r\nX-Empty:\r\n\r\nok\n';

describe('llhttp response parser', () => {
  it('gives the same response however the bytes are split across reads', () => {
    const whole = recorder(true);
    whole.feed(NGINX);
    expect(whole.done).toEqual([
      {
        status: 200,
        keepAlive: true,
        ka: 'timeout=5, max=100',
        body: 3,
        text: 'ok\n',
        more: false,
        headers: [
          'Server',
          'nginx',
          'Content-Type',
          'text/plain',
          'Content-Length',
          '3',
          'Connection',
          'keep-alive',
          'KEEP-alive',
          'timeout=5, max=100',
          'X-Empty',
          '',
        ],
      },
    ]);
    for (let cut = 1; cut < NGINX.length; cut++) {
      for (const keep of [true, false]) {
        const r = recorder(keep);
        r.feed(NGINX.slice(0, cut));
        r.feed(NGINX.slice(cut));
        expect(r.errors).toEqual([]);
        expect(r.done, `cut at ${cut}`).toEqual([{ ...whole.done[0], headers: keep ? whole.done[0].headers : null }]);
      }
    }
  });

  it('finds Keep-Alive in any case and only there, without header strings when none are kept', () => {
    const r = recorder(false);
    r.feed(
      'HTTP/1.1 200 OK\r\nKeep-Alivex: timeout=9\r\nKeep-Aliv: timeout=8\r\nkeep-alive: timeout=2\r\nContent-Length: 0\r\n\r\n',
    );
    expect(r.done.map((d) => [d.ka, d.headers])).toEqual([['timeout=2', null]]);
    const none = recorder(false);
    none.feed('HTTP/1.1 204 No Content\r\nKeep-Alivex: timeout=9\r\n\r\n');
    expect(none.done.map((d) => [d.status, d.ka])).toEqual([[204, null]]);
  });

  it('tells responses in one read apart, and says when bytes followed one', () => {
    const r = recorder(false);
    r.feed(
      'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\naHTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n',
    );
    expect(r.done.map((d) => [d.status, d.body, d.more])).toEqual([
      [100, 0, true],
      [200, 1, true],
      [404, 0, false],
    ]);
  });

  it('reads chunked bodies and bodies that end with the connection', () => {
    const c = recorder(false);
    c.feed('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n3;x=y\r\nabc\r\n0\r\n\r\n');
    expect(c.done.map((d) => [d.body, d.text, d.keepAlive])).toEqual([[8, 'helloabc', true]]);
    const e = recorder(false);
    e.feed('HTTP/1.1 200 OK\r\n\r\nuntil close');
    expect(e.done).toEqual([]);
    expect(e.parser.finish()).toBe(true);
    expect(e.done.map((d) => [d.body, d.text, d.keepAlive])).toEqual([[11, 'until close', false]]);
    const cut = recorder(false);
    cut.feed('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc');
    expect([cut.parser.finish(), cut.done.length, cut.errors.length]).toEqual([false, 0, 0]);
  });

  it("hands each piece of body as a view of the parser's memory, the bytes exact however the reads split them", () => {
    // A chunked body (an extension, a trailer) then a Content-Length one in the same bytes: the
    // views hold the body and nothing of the framing, at every cut.
    const body = Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 7) % 256));
    const bytes = Buffer.concat([
      Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n64;ext=1\r\n', 'latin1'),
      body.subarray(0, 100),
      Buffer.from('\r\nc8\r\n', 'latin1'),
      body.subarray(100),
      Buffer.from('\r\n0\r\nx-trailer: t\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 300\r\n\r\n', 'latin1'),
      body,
    ]);
    const want = body.toString('latin1');
    for (let cut = 1; cut < bytes.length; cut += 3) {
      const r = recorder(false);
      r.feed(bytes.subarray(0, cut));
      r.feed(bytes.subarray(cut));
      expect(r.errors).toEqual([]);
      expect(
        r.done.map((d) => [d.body, d.text === want]),
        `cut at ${cut}`,
      ).toEqual([
        [300, true],
        [300, true],
      ]);
    }
  });

  it('ends a 101 (upgrade) at its headers and never keeps its connection', () => {
    const r = recorder(false);
    r.feed('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n');
    expect(r.done.map((d) => [d.status, d.keepAlive, d.more])).toEqual([[101, false, false]]);
  });

  it('skips the body when the handler asks (HEAD)', () => {
    const r = recorder(false, true);
    r.feed('HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n');
    expect(r.done.map((d) => [d.status, d.body, d.text])).toEqual([[200, 0, '']]);
  });

  it.each([
    [
      'two framings',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n',
      /Content-Length can't be present with Transfer-Encoding/,
      'HPE_INVALID_CONTENT_LENGTH',
    ],
    [
      'two lengths',
      'HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n',
      /Duplicate Content-Length/,
      'HPE_UNEXPECTED_CONTENT_LENGTH',
    ],
    ['not HTTP', 'HTTQ/1.1 200 OK\r\n\r\n', /Expected HTTP\//, 'HPE_INVALID_CONSTANT'],
    [
      'a space in a header name',
      'HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n',
      /Invalid header/,
      'HPE_INVALID_HEADER_TOKEN',
    ],
    [
      'headers too large',
      `HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(MAX_HEADER_BYTES)}\r\n\r\n`,
      /headers over 16384 bytes/,
      'HPE_HEADER_OVERFLOW',
    ],
  ])("refuses %s with llhttp's reason and code", (_what, bytes, message, code) => {
    const r = recorder(true);
    r.feed(bytes);
    expect(r.done).toEqual([]);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0].message).toMatch(message);
    expect(r.errors[0].message).toMatch(/^invalid HTTP response: /);
    expect(r.errors[0].code).toBe(code);
  });

  it('parses nothing once freed, and many parsers come and go in bounded memory', () => {
    const r = recorder(false);
    r.parser.free();
    r.feed(NGINX);
    expect([r.done.length, r.errors.length, r.parser.finish()]).toEqual([0, 0, false]);
    const before = wasmMemoryBytes();
    for (let i = 0; i < 100_000; i++) {
      const p = recorder(false);
      p.feed(NGINX);
      p.parser.free();
    }
    // Not freed, 100,000 parsers would hold several MiB of the wasm heap.
    expect(wasmMemoryBytes() - before).toBeLessThan(2 ** 20);
  });
});
