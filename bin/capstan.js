#!/usr/bin/env node
// The `capstan` CLI. TypeScript runs through tsx's loader so the sources are the program.
import { existsSync } from 'node:fs';
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../runtime/cli/main.ts');
// dev/ (local control plane, demo) is in a clone, never in an image (docs/images.md).
const devCommands = new URL('../dev/cli/commands.ts', import.meta.url);
const extra = existsSync(devCommands) ? (await import(devCommands.href)).DEV_COMMANDS : {};
process.exitCode = await main(process.argv.slice(2), extra);
