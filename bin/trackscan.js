#!/usr/bin/env node
// The `trackscan` command: the compiled CLI lives in dist/ (npm run build:ts).
import { main } from '../dist/src/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
