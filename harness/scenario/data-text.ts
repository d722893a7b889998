/**
 * A data file's bytes as text, strictly UTF-8. Node's 'utf8' decoding turns a byte it cannot read
 * into U+FFFD, so a Latin-1 "café" would reach the target as "caf\uFFFD" and a UTF-16 file would
 * parse as ragged rows of NULs: both are refused here, naming the line of the first bad byte.
 * Validation is buffer.isUtf8 (native, a few ms for 100 MB); the byte-by-byte scan that finds the
 * place runs only on a file that failed it.
 */
import { isUtf8 } from 'node:buffer';

/** Why the bytes are not UTF-8 text, with the 1-based line of the first bad byte (0: the file as a whole). */
export interface EncodingProblem {
  line: number;
  cause: string;
  fix: string;
}

/** Bytes at the start of the file looked at for UTF-16 without a byte-order mark. */
const SNIFF_BYTES = 4096;

/** The text, or the problem; the UTF-8 byte-order mark is kept (the parsers skip it). */
export function decodeUtf8(bytes: Uint8Array): { text: string } | EncodingProblem {
  const utf16 = utf16Kind(bytes);
  if (utf16) {
    return {
      line: 0,
      cause: `is UTF-16 (${utf16}), not UTF-8`,
      fix: 'save the file as UTF-8 (e.g. iconv -f UTF-16 -t UTF-8 in > out, or "CSV UTF-8" in a spreadsheet)',
    };
  }
  if (isUtf8(bytes)) return { text: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8') };
  const at = firstInvalidByte(bytes);
  // lastIndexOf from -1 would search from the end: the first byte's line starts at 0
  const lineStart = at === 0 ? 0 : bytes.lastIndexOf(0x0a, at - 1) + 1;
  return {
    line: lineFeedsBefore(bytes, at) + 1,
    cause: `is not UTF-8: byte 0x${bytes[at].toString(16).toUpperCase().padStart(2, '0')} at byte ${at - lineStart + 1} of the line cannot be read (a Latin-1 or Windows-1252 file?)`,
    fix: 'save the file as UTF-8 (e.g. iconv -f WINDOWS-1252 -t UTF-8 in > out, or "CSV UTF-8" in a spreadsheet)',
  };
}

/**
 * How the bytes are UTF-16, or null: a byte-order mark (FF FE little-endian, FE FF big-endian), or,
 * without one, NULs in at least a quarter of the even or the odd bytes of the file's start (ASCII
 * text in UTF-16 has a NUL beside every character; UTF-8 text has none).
 */
function utf16Kind(bytes: Uint8Array): string | null {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'byte-order mark FF FE, little-endian';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'byte-order mark FE FF, big-endian';
  const n = Math.min(bytes.length, SNIFF_BYTES);
  const nuls = [0, 0];
  for (let i = 0; i < n; i++) if (bytes[i] === 0) nuls[i & 1]++;
  const half = n / 2;
  if (n >= 2 && nuls[1] >= half / 4 && nuls[1] > nuls[0]) return 'no byte-order mark, little-endian: NUL bytes';
  if (n >= 2 && nuls[0] >= half / 4) return 'no byte-order mark, big-endian: NUL bytes';
  return null;
}

/** How many line feeds bytes[0..end) holds. */
function lineFeedsBefore(bytes: Uint8Array, end: number): number {
  let n = 0;
  for (let i = bytes.indexOf(0x0a); i !== -1 && i < end; i = bytes.indexOf(0x0a, i + 1)) n++;
  return n;
}

/**
 * The offset of the first byte that does not start or continue a well-formed UTF-8 sequence
 * (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF), or of a sequence cut short.
 */
export function firstInvalidByte(bytes: Uint8Array): number {
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const b = bytes[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    // the sequence's length and the range its second byte must fall in (which rules out overlong
    // forms, surrogates and code points past U+10FFFF)
    let len: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) len = 2;
    else if (b >= 0xe0 && b <= 0xef) {
      len = 3;
      if (b === 0xe0) lo = 0xa0;
      if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      len = 4;
      if (b === 0xf0) lo = 0x90;
      if (b === 0xf4) hi = 0x8f;
    } else return i;
    for (let k = 1; k < len; k++) {
      const c = bytes[i + k];
      if (c === undefined) return i;
      if (k === 1 ? c < lo || c > hi : c < 0x80 || c > 0xbf) return i;
    }
    i += len;
  }
  return n;
}
