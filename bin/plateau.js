#!/usr/bin/env node
// Runs the TypeScript CLI through tsx, so user configs and scenarios can be TypeScript too.
import { register } from 'tsx/esm/api';

register();
await import('../harness/cli/main.ts');
