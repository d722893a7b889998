/**
 * A message cut to a length ends with CUT_MARK, so what was cut is visible, and so the secret
 * scrubber (secret-scrub.ts) can tell a cut text's last characters from whole ones: a secret's
 * start right before the mark is what a cut left of it. Pure: the k6 bundle uses it too.
 */
export const CUT_MARK = '…';

/** `text` when it fits in `max` characters; else its first max - 1 and CUT_MARK (max characters in all). */
export function cutMessage(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}${CUT_MARK}`;
}
