import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { openStore } from '../../src/store/open-store.js';
import { startRedisServer } from '../helpers/redis-server.js';

const CHILD = fileURLToPath(new URL('./keys-cli-child.js', import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `trackscan keys ARGS` as a child process with exactly the environment given (plus PATH). */
async function keys(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CHILD, ...args],
      { cwd: options.cwd, env: { PATH: process.env.PATH ?? '', ...options.env }, timeout: 30_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

async function tempDir(t: { after(fn: () => unknown): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'trackscan-keys-cli-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

test('keys CLI: create prints the key once, list shows it without the secret, revoke refuses it', async (t) => {
  const dataDir = join(await tempDir(t), 'data');
  const created = await keys(['create', '--name', 'first user', '--data', dataDir]);
  assert.equal(created.code, 0, created.stderr);
  assert.match(created.stdout, /^tsk_[0-9A-Za-z]{49}\n$/, 'stdout holds the key alone, for scripts');
  const secret = created.stdout.trim();
  assert.match(created.stderr, /Created key key_\w+ "first user" \(20 requests\/minute, 1000 analyses\/month\)/);
  assert.match(created.stderr, /only time/);

  const json = await keys(['create', '--name', 'tight', '--rate-limit', '3', '--monthly-limit', '0', '--json', '--data', dataDir]);
  assert.equal(json.code, 0, json.stderr);
  const second = JSON.parse(json.stdout) as Record<string, unknown>;
  assert.equal(second.name, 'tight');
  assert.equal(second.rate_limit, 3);
  assert.equal(second.monthly_limit, 0);
  assert.match(String(second.key), /^tsk_/);

  const list = await keys(['list', '--json', '--data', dataDir]);
  assert.equal(list.code, 0, list.stderr);
  const listed = JSON.parse(list.stdout) as Array<Record<string, unknown>>;
  assert.deepEqual(listed.map((k) => k.name), ['first user', 'tight']);
  assert.equal(list.stdout.includes(secret.slice(12)), false, 'list never shows a secret');
  assert.equal(listed[0]!.prefix, secret.slice(0, 12));
  const table = await keys(['list', '--data', dataDir]);
  assert.match(table.stdout, /^ID +NAME +PREFIX/);
  assert.match(table.stdout, /first user +tsk_\w{8}\.\.\. +20 +1000 .* active/);

  const store = await openStore({ dataDir });
  t.after(() => store.close());
  const found = await store.findKey(secret);
  assert.equal(found?.id, listed[0]!.id);
  assert.equal(found?.rateLimit, 20);
  assert.equal((await store.findKey(String(second.key)))?.rateLimit, 3);

  const revoked = await keys(['revoke', String(listed[0]!.id), '--data', dataDir]);
  assert.equal(revoked.code, 0, revoked.stderr);
  assert.equal(await store.findKey(secret), null, 'a running store instance refuses the revoked key at once');
  const again = await keys(['revoke', String(listed[0]!.id), '--data', dataDir]);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /no active key/);
  assert.match((await keys(['list', '--data', dataDir])).stdout, /first user .* revoked \d{4}-\d\d-\d\d/);
});

test('keys CLI: bad usage exits 2 and creates nothing', async (t) => {
  const dataDir = join(await tempDir(t), 'data');
  const cases = [
    [],
    ['create', '--data', dataDir],
    ['create', '--name', 'x', '--rate-limit', 'abc', '--data', dataDir],
    ['create', '--name', 'x', '--rate-limit', '0', '--data', dataDir],
    ['create', '--name', 'x', '--monthly-limit', '-5', '--data', dataDir],
    ['create', '--name', 'x', '--bogus', '--data', dataDir],
    ['revoke', '--data', dataDir],
    ['list', 'extra', '--data', dataDir],
    ['rotate', '--data', dataDir],
  ];
  for (const args of cases) {
    const run = await keys(args);
    assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr, /trackscan keys: /);
  }
  await assert.rejects(stat(dataDir), { code: 'ENOENT' });
  const help = await keys(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /trackscan keys create --name NAME/);
});

test('keys CLI: the data directory comes from --data, then TRACKSCAN_DATA_DIR, then ./.trackscan', async (t) => {
  const root = await tempDir(t);
  const fromEnv = join(root, 'env-data');
  const created = await keys(['create', '--name', 'env'], { cwd: root, env: { TRACKSCAN_DATA_DIR: fromEnv } });
  assert.equal(created.code, 0, created.stderr);
  assert.equal((await stat(fromEnv)).mode & 0o777, 0o700);
  const local = await keys(['create', '--name', 'local'], { cwd: root });
  assert.equal(local.code, 0, local.stderr);
  assert.ok((await stat(join(root, '.trackscan'))).isDirectory());
  const envList = JSON.parse((await keys(['list', '--json'], { cwd: root, env: { TRACKSCAN_DATA_DIR: fromEnv } })).stdout) as Array<{ name: string }>;
  assert.deepEqual(envList.map((k) => k.name), ['env']);
  const localList = JSON.parse((await keys(['list', '--json'], { cwd: root })).stdout) as Array<{ name: string }>;
  assert.deepEqual(localList.map((k) => k.name), ['local']);
});

test('keys CLI: REDIS_URL selects Redis, and an unreachable Redis exits 1', async (t) => {
  const redis = await startRedisServer();
  t.after(() => redis.stop());
  const root = await tempDir(t);
  const env = { REDIS_URL: redis.url };
  const created = await keys(['create', '--name', 'shared', '--rate-limit', '7'], { cwd: root, env });
  assert.equal(created.code, 0, created.stderr);
  await assert.rejects(stat(join(root, '.trackscan')), { code: 'ENOENT' }, 'nothing local with Redis');
  const store = await openStore({ dataDir: join(root, 'unused'), redisUrl: redis.url });
  t.after(() => store.close());
  assert.equal((await store.findKey(created.stdout.trim()))?.rateLimit, 7);

  await redis.stop();
  const down = await keys(['list'], { cwd: root, env });
  assert.equal(down.code, 1);
  assert.match(down.stderr, /Cannot connect to Redis/);
});
