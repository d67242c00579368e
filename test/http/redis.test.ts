/**
 * The HTTP service over Redis (REDIS_URL) with a real redis-server: the
 * same answers as over SQLite, and during an outage every request that
 * needs counters fails closed (503 unavailable with Retry-After, never let
 * through), health says not ready, and both recover by themselves.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { startRedisServer } from '../helpers/redis-server.js';
import { makeAudio } from './helpers/audio.js';
import { postFile, problemOf, startHarness } from './helpers/harness.js';

test('over Redis: answers, then fail closed during an outage, then recovery', async (t) => {
  let redis = await startRedisServer();
  t.after(() => redis.stop());
  const h = await startHarness(t, { env: { REDIS_URL: redis.url } });
  const mp3 = await makeAudio(t, 'mp3', 2);

  const health = (await (await h.call('/health', { key: null })).json()) as { status: string; checks: { store: { backend: string } } };
  assert.equal(health.status, 'ok');
  assert.equal(health.checks.store.backend, 'redis');
  const first = (await (await postFile(h, mp3)).json()) as { cached: boolean };
  assert.equal(first.cached, false);
  const second = (await (await postFile(h, mp3)).json()) as { cached: boolean };
  assert.equal(second.cached, true);
  const usage = (await (await h.call('/usage')).json()) as { analyses_this_month: number; requests_this_minute: number };
  assert.equal(usage.analyses_this_month, 1);
  assert.equal(usage.requests_this_minute, 3);

  await redis.stop();
  const started = performance.now();
  for (const res of [await h.call('/usage'), await postFile(h, mp3)]) {
    const problem = await problemOf(res);
    assert.equal(res.status, 503, problem.detail);
    assert.equal(problem.code, 'unavailable');
    assert.ok(Number(res.headers.get('retry-after')) >= 1);
  }
  const down = await h.call('/health', { key: null });
  assert.equal(down.status, 503);
  assert.equal(((await problemOf(down)) as unknown as { health: { checks: { store: { status: string } } } }).health.checks.store.status, 'fail');
  assert.ok(performance.now() - started < 10_000, 'failures are prompt');

  // Same port, empty data: health recovers by itself; the old key is gone with the data.
  redis = await startRedisServer({ port: redis.port });
  const deadline = Date.now() + 15_000;
  while ((await h.call('/health', { key: null })).status !== 200) {
    assert.ok(Date.now() < deadline, 'health recovered within 15 s');
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.equal((await h.call('/usage')).status, 401);
  const { secret } = await h.running.store.createKey({ name: 'after', rateLimit: 20, monthlyLimit: 10 });
  assert.equal((await h.call('/usage', { key: secret })).status, 200);
});
