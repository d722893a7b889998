/**
 * HTTP/1.1 responses parsed by llhttp, the parser of Node's http and of undici, from the
 * WebAssembly build undici ships (undici/lib/llhttp, pinned with undici; docs/decisions/012).
 * Framing (Content-Length, chunked, read-until-close, 1xx, 204/304, HEAD) and its refusals (two
 * framings, differing lengths, bad tokens) are llhttp's, as strict as undici's client.
 *
 * The hot path makes no string unless asked: header names are matched byte by byte in the wasm
 * memory (only Keep-Alive is read), and names and values become strings only for a parser made
 * with `keepHeaders` (a scenario with a check). A response ends by pausing the parser, so the
 * handler runs outside llhttp and learns whether bytes followed it in the same read.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** Above this many bytes of header names and values a response is refused, as Node's http does. */
export const MAX_HEADER_BYTES = 16 * 1024;

/** What a parser reports, only while it is not freed (so a handler needs no check that it is still its parser). */
export interface ResponseHandler {
  /** Headers parsed (1xx included); true skips the body (HEAD). `headers` is reused by the next response. */
  onResponseHeaders(
    status: number,
    headers: string[] | null,
    keepAlive: boolean,
    keepAliveValue: string | null,
  ): boolean;
  /**
   * `len` bytes of body at `src[at..at+len)`: a view of the parser's memory, valid only during the
   * call (copy what you keep; a handler that only counts reads `len` and nothing is allocated).
   */
  onResponseBody(src: Buffer, at: number, len: number): void;
  /** A whole response; `more`: bytes followed it in the same read. */
  onResponseComplete(more: boolean): void;
  onResponseError(err: Error & { code: string }): void;
}

interface Llhttp {
  memory: WebAssembly.Memory;
  _initialize?: () => void;
  llhttp_alloc(type: number): number;
  llhttp_free(ptr: number): void;
  malloc(n: number): number;
  free(ptr: number): void;
  llhttp_execute(ptr: number, at: number, len: number): number;
  llhttp_finish(ptr: number): number;
  llhttp_resume(ptr: number): void;
  llhttp_get_error_pos(ptr: number): number;
  llhttp_get_error_reason(ptr: number): number;
  llhttp_errno_name(errno: number): number;
}

const TYPE_RESPONSE = 2;
const OK = 0;
const PAUSED = 21;
const PAUSED_UPGRADE = 22;
/** "keep-alive" as bytes, to match a header name without a string. */
const KEEP_ALIVE = Buffer.from('keep-alive', 'latin1');

let wasm: Llhttp | null = null;
let mem: Buffer = Buffer.alloc(0);
let inPtr = 0;
let inSize = 0;
/** The parser inside llhttp_execute/finish (one at a time per thread). */
let current: ResponseParser | null = null;
let live = 0;

function llhttp(): Llhttp {
  if (wasm) return wasm;
  let mod: WebAssembly.Module;
  try {
    mod = new WebAssembly.Module(require('undici/lib/llhttp/llhttp_simd-wasm.js') as BufferSource);
  } catch {
    mod = new WebAssembly.Module(require('undici/lib/llhttp/llhttp-wasm.js') as BufferSource);
  }
  const inst = new WebAssembly.Instance(mod, {
    env: {
      wasm_on_url: () => 0,
      wasm_on_status: () => 0,
      wasm_on_message_begin: () => (current ? current.begin() : 0),
      wasm_on_header_field: (_ptr: number, at: number, len: number) => (current ? current.field(at, len) : 0),
      wasm_on_header_value: (_ptr: number, at: number, len: number) => (current ? current.value(at, len) : 0),
      // An upgraded connection (101) speaks another protocol after the response: never kept.
      wasm_on_headers_complete: (_ptr: number, status: number, upgrade: number, keepAlive: number) =>
        current ? current.headersDone(status, keepAlive === 1 && upgrade === 0) : 0,
      wasm_on_body: (_ptr: number, at: number, len: number) => (current ? current.body(at, len) : 0),
      // Pausing hands the end of the response back to execute(), outside the wasm call.
      wasm_on_message_complete: () => PAUSED,
    },
  });
  wasm = inst.exports as unknown as Llhttp;
  wasm._initialize?.();
  return wasm;
}

/** The wasm memory as a Buffer, renewed when malloc has grown it. */
function memory(w: Llhttp): Buffer {
  if (mem.buffer !== w.memory.buffer) mem = Buffer.from(w.memory.buffer);
  return mem;
}

function cString(w: Llhttp, ptr: number): string {
  if (!ptr) return '';
  const m = memory(w);
  const end = m.indexOf(0, ptr);
  return m.toString('latin1', ptr, end < 0 ? ptr : end);
}

/** The size of llhttp's wasm heap (parsers and the input buffer live there). */
export function wasmMemoryBytes(): number {
  return llhttp().memory.buffer.byteLength;
}

/** Parsers allocated in this thread and not yet freed (one per open connection). */
export function liveParsers(): number {
  return live;
}

export class ResponseParser {
  private ptr: number;
  private headers: string[] | null;
  /** The array headers are collected in while kept (reused by every response). */
  private readonly kept: string[] = [];
  private headerBytes = 0;
  /** Bytes of the current header name that matched "keep-alive" so far; -1 once it cannot. */
  private kaMatched = 0;
  private inValue = false;
  private kaValue: string | null = null;
  private tooLarge = false;

  constructor(
    private readonly handler: ResponseHandler,
    keepHeaders: boolean,
  ) {
    this.ptr = llhttp().llhttp_alloc(TYPE_RESPONSE);
    live++;
    this.headers = keepHeaders ? this.kept : null;
  }

  /** Whether the next responses' headers are collected (a request whose check reads them); set between responses. */
  keepHeaders(on: boolean): void {
    this.headers = on ? this.kept : null;
  }

  /** Parses `length` bytes of `chunk`; the handler hears of each response and of an error. */
  execute(chunk: Buffer, length: number): void {
    if (!this.ptr) return;
    const w = llhttp();
    if (length > inSize) {
      if (inPtr) w.free(inPtr);
      inSize = Math.ceil(length / 65536) * 65536;
      inPtr = w.malloc(inSize);
    }
    chunk.copy(memory(w), inPtr, 0, length);
    let at = 0;
    while (this.ptr) {
      let ret: number;
      current = this;
      try {
        ret = w.llhttp_execute(this.ptr, inPtr + at, length - at);
      } finally {
        current = null;
      }
      if (ret === OK) return;
      if (ret !== PAUSED) {
        this.fail(w, ret);
        return;
      }
      const pos = w.llhttp_get_error_pos(this.ptr) - inPtr;
      w.llhttp_resume(this.ptr);
      this.handler.onResponseComplete(pos < length);
      if (pos >= length) return;
      at = pos;
    }
  }

  /** The connection ended: true when that completed a response (a body read until close); the handler heard of it. */
  finish(): boolean {
    if (!this.ptr) return false;
    const w = llhttp();
    let ret: number;
    current = this;
    try {
      ret = w.llhttp_finish(this.ptr);
    } finally {
      current = null;
    }
    if (ret !== PAUSED) return false;
    w.llhttp_resume(this.ptr);
    this.handler.onResponseComplete(false);
    return true;
  }

  /** Gives the parser's wasm memory back; it parses nothing after this. */
  free(): void {
    if (!this.ptr) return;
    if (current === this) throw new Error('a response parser cannot be freed from inside its own callbacks');
    llhttp().llhttp_free(this.ptr);
    this.ptr = 0;
    live--;
  }

  private fail(w: Llhttp, ret: number): void {
    const err = this.tooLarge
      ? Object.assign(new Error(`invalid HTTP response: headers over ${MAX_HEADER_BYTES} bytes`), {
          code: 'HPE_HEADER_OVERFLOW',
        })
      : ret === PAUSED_UPGRADE
        ? Object.assign(
            new Error(
              'invalid HTTP response: the server switched protocols (upgrade), which a load test cannot follow',
            ),
            { code: 'HPE_PAUSED_UPGRADE' },
          )
        : Object.assign(
            new Error(`invalid HTTP response: ${cString(w, w.llhttp_get_error_reason(this.ptr)) || 'parse error'}`),
            { code: cString(w, w.llhttp_errno_name(ret)) || 'HPE_INVALID' },
          );
    this.handler.onResponseError(err);
  }

  /** @internal llhttp callbacks, called only while this parser runs. */
  begin(): number {
    if (this.headers) this.headers.length = 0;
    this.headerBytes = 0;
    this.kaMatched = 0;
    this.inValue = false;
    this.kaValue = null;
    return 0;
  }

  field(at: number, len: number): number {
    if (this.inValue) {
      this.inValue = false;
      this.kaMatched = 0;
    }
    if ((this.headerBytes += len) > MAX_HEADER_BYTES) {
      this.tooLarge = true;
      return -1;
    }
    const m = mem;
    let k = this.kaMatched;
    for (let i = 0; i < len && k >= 0; i++)
      k = k < KEEP_ALIVE.length && (m[at + i] | 0x20) === KEEP_ALIVE[k] ? k + 1 : -1;
    this.kaMatched = k;
    const h = this.headers;
    if (h) {
      const s = m.toString('latin1', at, at + len);
      if (h.length % 2 === 1) h[h.length - 1] += s;
      else h.push(s);
    }
    return 0;
  }

  value(at: number, len: number): number {
    const first = !this.inValue;
    this.inValue = true;
    if ((this.headerBytes += len) > MAX_HEADER_BYTES) {
      this.tooLarge = true;
      return -1;
    }
    const isKa = this.kaMatched === KEEP_ALIVE.length;
    const h = this.headers;
    if (!h && !isKa) return 0;
    const s = mem.toString('latin1', at, at + len);
    if (isKa) this.kaValue = first ? s : `${this.kaValue ?? ''}${s}`;
    if (h) {
      if (first) h.push(s);
      else h[h.length - 1] += s;
    }
    return 0;
  }

  headersDone(status: number, keepAlive: boolean): number {
    const h = this.headers;
    // Names and values alternate (llhttp calls on_header_value for an empty value too); keep the pairs even regardless.
    if (h && h.length % 2 === 1) h.push('');
    return this.handler.onResponseHeaders(status, h, keepAlive, this.kaValue) ? 1 : 0;
  }

  body(at: number, len: number): number {
    // `mem` is current: execute() renewed it before llhttp ran, and llhttp allocates nothing while it parses.
    this.handler.onResponseBody(mem, at, len);
    return 0;
  }
}
