/** `plateau k8s run`: not built yet in this commit (the orchestration follows). */
import { EXIT, PlateauError } from '../errors.ts';

export async function runK8s(_: unknown): Promise<number> {
  throw new PlateauError(
    'plateau k8s run is not built yet',
    'write the manifests with `plateau k8s manifest` and apply them with kubectl',
    'k8s-not-built',
    EXIT.usage,
  );
}
