#!/usr/bin/env node
// Every test: the native suites (CMake + ctest), the prebuild, then every
// node:test file under dist/test (compiled by `npm test`'s pretest step).
// Set TRACKSCAN_SKIP_NATIVE=1 / TRACKSCAN_SKIP_PREBUILD=1 to leave a part out
// while iterating; CI never sets them.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function run(cmd, args) {
  console.log(`\n$ ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`\ntest: "${cmd} ${args.join(' ')}" failed (${r.status ?? r.signal})`);
    process.exit(r.status || 1);
  }
}

function findTests(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return findTests(path);
    return name.endsWith('.test.js') ? [path] : [];
  });
}

if (!process.env.TRACKSCAN_SKIP_NATIVE) run('npm', ['run', 'test:native']);
if (!process.env.TRACKSCAN_SKIP_PREBUILD) run('npm', ['run', 'prebuild']);
const files = findTests('dist/test').sort();
const filter = process.argv[2];
run(process.execPath, ['--test', '--test-concurrency=2', '--test-timeout=600000', ...files.filter((f) => !filter || f.includes(filter))]);
