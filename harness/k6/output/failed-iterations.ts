/**
 * With arrivals 'iterations' and k6's vu and iter: each VU's iteration that had a failed request,
 * with the first such request's kind, until its `iterations` sample. k6 writes a VU's samples in
 * the order they happened (its requests', then its iteration's, through one channel), so an entry
 * a VU is enough: O(VUs), never O(requests). An iteration k6 cut short writes no `iterations`
 * sample; its entry is replaced by the VU's next failed iteration.
 */
import type { ErrorKind } from '../../../analysis/types.ts';

export class FailedIterations {
  private readonly byVU = new Map<string, { iter: string; kind: ErrorKind }>();

  /** A failed request of VU vu's iteration iter: the iteration failed, by its first failed request. */
  failed(vu: string, iter: string, kind: ErrorKind): void {
    const f = this.byVU.get(vu);
    if (f === undefined) this.byVU.set(vu, { iter, kind });
    else if (f.iter !== iter) {
      f.iter = iter;
      f.kind = kind;
    }
  }

  /** VU vu's iteration iter ended: the kind of its first failed request, or null when none failed. */
  ended(vu: string, iter: string): ErrorKind | null {
    const f = this.byVU.get(vu);
    const failed = f !== undefined && f.iter === iter ? f.kind : null;
    if (failed !== null) this.byVU.delete(vu);
    return failed;
  }
}
