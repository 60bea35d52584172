#!/usr/bin/env node
// Runs the TypeScript sources through tsx, so no compile step stands between a checkout and the CLI.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
