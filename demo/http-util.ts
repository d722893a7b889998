/** Small node:http helpers: bounded body reading and JSON answers. */
import type { IncomingMessage, ServerResponse } from 'node:http';

export class BodyTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`request body exceeds ${limitBytes} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

/** Read the whole body as exact bytes; rejects with BodyTooLargeError beyond limitBytes. */
export function readBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let sizeBytes = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      sizeBytes += chunk.length;
      if (sizeBytes > limitBytes) {
        failed = true;
        reject(new BodyTooLargeError(limitBytes));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!failed) resolve(Buffer.concat(chunks, sizeBytes));
    });
    req.on('error', (err) => {
      if (!failed) reject(err);
      failed = true;
    });
    req.on('close', () => {
      if (!req.complete && !failed) reject(new Error('request aborted before its body was complete'));
      failed = true;
    });
  });
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  sendText(res, status, typeof body === 'string' ? body : JSON.stringify(body), 'application/json', headers);
}

export function sendText(
  res: ServerResponse,
  status: number,
  text: string,
  contentType: string,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const payload = Buffer.from(text, 'utf8');
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': String(payload.length), ...headers });
  res.end(payload);
}
