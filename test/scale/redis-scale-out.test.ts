/**
 * Scale-out (issue 5): two `trackscan serve` processes sharing one real
 * redis-server. Counts stay exact across them, a result cached by one is a
 * hit on the other, and a key revoked through one store is refused by the
 * other at once.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';

import { cli, ENCODINGS, ffmpeg, makeTempDir, musicSource, runCli } from '../helpers/media.js';
import { startRedisServer } from '../helpers/redis-server.js';

interface Instance {
  api: string;
  child: ChildProcess;
}

async function serve(t: { after: (fn: () => Promise<void>) => void }, env: Record<string, string>, dataDir: string): Promise<Instance> {
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--data', dataDir], {
    env: { ...process.env, ...env, TRACKSCAN_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.after(async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (output += d));
  for (let i = 0; i < 300; i++) {
    const url = /listening on (http:\/\/[\d.]+:\d+)/.exec(output)?.[1];
    if (url) return { api: `${url}/api/v1`, child };
    if (child.exitCode !== null) break;
    await sleep(50);
  }
  throw new Error(`server did not start:\n${output}`);
}

/** Waits until at least `margin` seconds remain in the current UTC minute, so a burst is counted in one minute. */
async function awayFromMinuteEnd(margin = 20): Promise<void> {
  const left = 60 - new Date().getUTCSeconds();
  if (left < margin) await sleep(left * 1000 + 200);
}

test('two servers on one Redis: exact counts, shared cache, immediate revocation', async (t) => {
  const redis = await startRedisServer();
  t.after(() => redis.stop());
  const dir = await makeTempDir(t);
  const env = { REDIS_URL: redis.url, TRACKSCAN_DATA_DIR: dir };

  const created = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, [cli, 'keys', 'create', '--name', 'scale', '--rate-limit', '100000', '--monthly-limit', '10'], {
      env: { ...process.env, ...env },
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`keys create exited ${code}`))));
  });
  const key = /tsk_\w+/.exec(created)?.[0];
  assert.ok(key, created);

  const [a, b] = await Promise.all([serve(t, env, join(dir, 'a')), serve(t, env, join(dir, 'b'))]);
  const call = (i: Instance, path: string, init: RequestInit = {}): Promise<Response> =>
    fetch(`${i.api}${path}`, { ...init, headers: { 'x-api-key': key, ...(init.headers as Record<string, string> | undefined) } });

  // 200 concurrent requests spread over both processes, in one UTC minute.
  await awayFromMinuteEnd();
  const statuses = await Promise.all(Array.from({ length: 200 }, (_, i) => call(i % 2 ? b : a, '/usage').then((r) => r.status)));
  assert.deepEqual(new Set(statuses), new Set([200]));
  const usage = (await (await call(a, '/usage')).json()) as { requests_this_minute: number; analyses_this_month: number };
  assert.equal(usage.requests_this_minute, 201);

  const files = await Promise.all(
    Array.from({ length: 16 }, async (_, i) => {
      const path = join(dir, `f${i}.flac`);
      await ffmpeg(...musicSource(2 + i * 0.1), ...ENCODINGS.flac!, path);
      return readFile(path);
    }),
  );
  const upload = (i: Instance, bytes: Buffer): Promise<Response> => {
    const form = new FormData();
    form.append('file', new Blob([bytes]), 'x.flac');
    return call(i, '/analyze/file', { method: 'POST', body: form });
  };

  // A result analysed through one process is a cache hit through the other,
  // and the hit is not counted as an analysis.
  const fresh = await upload(a, files[0]!);
  assert.equal(fresh.status, 200);
  assert.equal(((await fresh.json()) as { cached: boolean }).cached, false);
  const hit = await upload(b, files[0]!);
  assert.equal(hit.status, 200);
  assert.equal(((await hit.json()) as { cached: boolean }).cached, true);
  assert.equal(((await (await call(a, '/usage')).json()) as { analyses_this_month: number }).analyses_this_month, 1);

  // Monthly quota of 10 with 1 used; 15 other files uploaded at once through
  // both processes: exactly 9 analysed, 10 counted, 6 refused with 429.
  const answers = await Promise.all(files.slice(1).map((bytes, i) => upload(i % 2 ? b : a, bytes)));
  const codes = await Promise.all(answers.map(async (r) => (r.ok ? 'ok' : ((await r.json()) as { code: string }).code)));
  assert.equal(codes.filter((c) => c === 'ok').length, 9, codes.join(','));
  assert.equal(codes.filter((c) => c === 'quota_exceeded').length, 6, codes.join(','));
  const after = (await (await call(b, '/usage')).json()) as { analyses_this_month: number };
  assert.equal(after.analyses_this_month, 10);

  // Revoked through the CLI (the shared store): both processes refuse it at once.
  const list = await runCliWithEnv(['keys', 'list', '--json'], env);
  const id = (JSON.parse(list) as { id: string; name: string }[]).find((k) => k.name === 'scale')!.id;
  await runCliWithEnv(['keys', 'revoke', id], env);
  for (const i of [a, b]) {
    const refused = await call(i, '/usage');
    assert.equal(refused.status, 401);
    assert.equal(((await refused.json()) as { code: string }).code, 'invalid_api_key');
  }
});

async function runCliWithEnv(args: string[], env: Record<string, string>): Promise<string> {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    const r = await runCli(args);
    assert.equal(r.code, 0, r.stderr);
    return r.stdout;
  } finally {
    for (const k of Object.keys(env)) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  }
}

test('two servers starting at once on an empty shared store create one first key, not two', async (t) => {
  const redis = await startRedisServer();
  t.after(() => redis.stop());
  const dir = await makeTempDir(t);
  const env = { REDIS_URL: redis.url, TRACKSCAN_DATA_DIR: dir };
  await Promise.all([serve(t, env, join(dir, 'a')), serve(t, env, join(dir, 'b'))]);
  const keys = JSON.parse(await runCliWithEnv(['keys', 'list', '--json'], env)) as { name: string }[];
  assert.deepEqual(keys.map((k) => k.name), ['default']);
});

test('Redis stops mid-run: requests fail closed with 503, and recover by themselves when it is back', async (t) => {
  let redis = await startRedisServer();
  t.after(() => redis.stop());
  const dir = await makeTempDir(t);
  const env = { REDIS_URL: redis.url, TRACKSCAN_DATA_DIR: dir };
  const created = await runCliWithEnv(['keys', 'create', '--name', 'outage'], env);
  const key = /tsk_\w+/.exec(created)![0];
  const server = await serve(t, env, join(dir, 'a'));
  const usage = (k: string): Promise<Response> => fetch(`${server.api}/usage`, { headers: { 'x-api-key': k } });
  assert.equal((await usage(key)).status, 200);

  await redis.stop();
  const during = await usage(key);
  assert.equal(during.status, 503);
  assert.equal(((await during.json()) as { code: string }).code, 'unavailable');
  assert.equal((await fetch(`${server.api}/health`)).status, 503);

  // Back on the same port (empty: this test server keeps nothing on disk).
  redis = await startRedisServer({ port: redis.port });
  const again = /tsk_\w+/.exec(await runCliWithEnv(['keys', 'create', '--name', 'after'], env))![0];
  let status = 0;
  for (let i = 0; i < 100 && status !== 200; i++) {
    status = (await usage(again)).status;
    if (status !== 200) await sleep(100);
  }
  assert.equal(status, 200, 'the server did not recover after Redis came back');
  assert.equal((await fetch(`${server.api}/health`)).status, 200);
});
