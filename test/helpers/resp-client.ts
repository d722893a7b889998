/**
 * A RESP2 client on node:net for the downstream test's real Redis (test/helpers/redis-target.ts):
 * no npm dependency. Commands are written as they come and answered in order.
 */
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';

export type RespReply = string | number | null | RespReply[] | Error;

/**
 * A RESP2 client on one connection: commands are written as they come (pipelined if the caller
 * does not wait) and answered in order. `call` resolves with the reply and the time it took (ms, from the write to the reply).
 */
export class RespClient {
  private buf: Buffer = Buffer.alloc(0);
  private readonly waiting: { resolve: (r: { reply: RespReply; ms: number }) => void; sentAt: number }[] = [];

  private constructor(private readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on('data', (d: Buffer) => {
      this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d;
      for (;;) {
        const parsed = parseReply(this.buf, 0);
        if (!parsed) break;
        this.buf = this.buf.subarray(parsed.end);
        const w = this.waiting.shift();
        w?.resolve({ reply: parsed.value, ms: performance.now() - w.sentAt });
      }
    });
  }

  static async connect(port: number): Promise<RespClient> {
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    return new RespClient(socket);
  }

  call(...args: (string | number)[]): Promise<{ reply: RespReply; ms: number }> {
    const parts = args.map(String);
    const wire = `*${parts.length}\r\n${parts.map((p) => `$${Buffer.byteLength(p)}\r\n${p}\r\n`).join('')}`;
    return new Promise((resolve) => {
      this.waiting.push({ resolve, sentAt: performance.now() });
      this.socket.write(wire);
    });
  }

  close(): void {
    this.socket.destroy();
  }
}

/** One reply starting at `i`, and where it ends; null when the buffer does not hold all of it yet. */
function parseReply(b: Buffer, i: number): { value: RespReply; end: number } | null {
  const eol = b.indexOf('\r\n', i);
  if (eol < 0) return null;
  const line = b.toString('utf8', i + 1, eol);
  switch (String.fromCharCode(b[i])) {
    case '+':
      return { value: line, end: eol + 2 };
    case '-':
      return { value: new Error(line), end: eol + 2 };
    case ':':
      return { value: Number(line), end: eol + 2 };
    case '$': {
      const n = Number(line);
      if (n < 0) return { value: null, end: eol + 2 };
      if (b.length < eol + 2 + n + 2) return null;
      return { value: b.toString('utf8', eol + 2, eol + 2 + n), end: eol + 2 + n + 2 };
    }
    case '*': {
      const n = Number(line);
      if (n < 0) return { value: null, end: eol + 2 };
      const items: RespReply[] = [];
      let at = eol + 2;
      for (let k = 0; k < n; k++) {
        const item = parseReply(b, at);
        if (!item) return null;
        items.push(item.value);
        at = item.end;
      }
      return { value: items, end: at };
    }
    default:
      throw new Error(`not a RESP reply: ${JSON.stringify(b.toString('utf8', i, Math.min(b.length, i + 40)))}`);
  }
}
