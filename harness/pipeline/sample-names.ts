/**
 * A transaction's request names built from data (an id of an answer, a row's text, ctx.pick,
 * ctx.uniqueId), told by comparing its two sample arrivals, of other numbers, ids and rows: such a
 * name would make one row per request (names.ts). Apart from sample-arrivals.ts, which runs the two
 * arrivals: these only compare the names each sent and the rows it read.
 */
import type { ScenarioRequests } from '../scenario/requests.ts';
import { nameFromRow, nameFromRowText, type RowRead } from '../scenario/row-names.ts';
import { dataShape, NAME_FIX } from '../scenario/names.ts';
import { PlateauError, EXIT } from '../errors.ts';

/**
 * A transaction's request named after text of a row it read, from a column of many values
 * (row-names.ts), in both of its sample arrivals, each from its own row and by the same column: a
 * fixed name that holds one sampled row's value by chance ('search', a row's term "search") is
 * not refused on one arrival alone.
 */
export function refuseNameFromRow(
  transaction: string,
  names: readonly [readonly string[], readonly string[]],
  reads: readonly [readonly RowRead[], readonly RowRead[]],
  s: ScenarioRequests,
): void {
  const [first, second] = [nameFromRow(names[0], reads[0], s.data), nameFromRow(names[1], reads[1], s.data)];
  if (first && second && first.source === second.source && first.column === second.column)
    throw new PlateauError(nameFromRowText(transaction, second), NAME_FIX, 'scenario-failed', EXIT.preflight);
}

/**
 * A name one sample arrival of a transaction sent and the other did not, beside one of the same
 * shape the other sent instead ('item 12' and 'item 31'): built from data. Names as sets, so a
 * request sent in one arrival only (a branch, a loop of another length) shifts nothing; names
 * that differ in more than their numbers (a branch: 'upgrade' or 'standard') are not refused.
 */
export function builtName(a: readonly string[], b: readonly string[]): [string, string] | null {
  const onlyA = a.filter((n) => !b.includes(n));
  const onlyB = b.filter((n) => !a.includes(n));
  for (const x of onlyA) {
    const y = onlyB.find((n) => dataShape(n) === dataShape(x));
    if (y !== undefined) return [x, y];
  }
  return null;
}
