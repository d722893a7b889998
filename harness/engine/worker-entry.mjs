// Worker threads start here: TypeScript through tsx, then the worker's own module.
import { register } from 'tsx/esm/api';

register();
await import('./worker-main.ts');
