/** How the comparison's texts give a share and a list: "70%" and "a, b, c, d and 3 more". */
import { fmtMixShare } from '../format.ts';

/** Entries named in each part of a mix difference before the rest are counted. */
const MIX_NAMED = 4;

/** A share as the texts give it: "70%", "0.9%"; finer when `other` would read the same. */
export function pct(share: number, other?: number): string {
  // the plan's own: whole percents where the share is one, else a tenth ("36.1%", as `plan` says)
  const text = fmtMixShare;
  if (other === undefined || text(share) !== text(other)) return text(share);
  return `${Number((100 * share).toPrecision(6))}%`;
}

/** "a, b, c, d and 3 more": the first MIX_NAMED and a count of the rest. */
export function firstFew(items: string[]): string {
  const more = items.length - MIX_NAMED;
  return `${items.slice(0, more > 0 ? MIX_NAMED : items.length).join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}
