#!/usr/bin/env node
// The `capstan` CLI. TypeScript runs through tsx's loader so the sources are the program.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../runtime/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
