/**
 * What a user's plateau.config.ts and scenario modules import: `import { defineConfig,
 * defineScenario } from 'plateau'`.
 */
import type { PlateauConfigInput } from './config/schema.ts';

export { defineScenario } from './scenario/types.ts';
export type {
  Scenario,
  ScenarioContext,
  RequestSpec,
  ResponseInfo,
  IdFormat,
  Check,
  MixEntry,
  RequestEntry,
  TransactionEntry,
  TransactionHttp,
  SentResponse,
  DataSource,
  DataOrder,
  Row,
} from './scenario/types.ts';
export type { PlateauConfigInput as PlateauConfig } from './config/schema.ts';

/** Typed identity: gives editors the config's shape and documentation. */
export function defineConfig(config: PlateauConfigInput): PlateauConfigInput {
  return config;
}
