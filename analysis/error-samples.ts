/**
 * Which error messages a window keeps as its samples (BucketRecord.samples, a step's
 * errorSamples): the first few distinct, bounded, never one per request. A failed response's
 * message ends with the start of its body (`HTTP 401; body: {"error":"bad credentials"}`), and a
 * body that holds an id makes every such message distinct: so a message's kind is what precedes
 * its body, and each kind's first message is kept before a second message of any kind. Pure.
 */

/** How a message names the start of a failed response's body; what precedes it is the message's kind (sampleKey). */
export const SAMPLE_BODY = '; body: ';

/** A message less the body it quotes: messages that differ only in their body are one kind. */
export function sampleKey(message: string): string {
  const at = message.indexOf(SAMPLE_BODY);
  return at < 0 ? message : message.slice(0, at);
}

/**
 * At most `max` distinct messages of `samples`: the first of each kind (sampleKey), in order of
 * appearance, then as many later messages as there is room for, the earliest first; the result
 * in the order the messages appeared. Capping a capped list with more messages gives what capping
 * the whole list does, so windows merge one bucket at a time.
 */
export function capSamples(samples: readonly string[], max: number): string[] {
  const distinct = [...new Set(samples)];
  if (distinct.length <= max) return distinct;
  const kinds = new Set<string>();
  const firsts = new Set<string>();
  for (const s of distinct) {
    if (firsts.size >= max) break;
    const k = sampleKey(s);
    if (kinds.has(k)) continue;
    kinds.add(k);
    firsts.add(s);
  }
  let room = max - firsts.size;
  return distinct.filter((s) => firsts.has(s) || (room > 0 && room-- > 0));
}
