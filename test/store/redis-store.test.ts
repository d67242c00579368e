import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { createClient } from 'redis';

import { openStore } from '../../src/store/open-store.js';
import { RedisStore } from '../../src/store/redis-store.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { storeContract } from './store-contract.js';

// One redis-server for the contract tests; each test gets its own key prefix, so
// tests cannot see each other's keys, counters or cache.
let shared: RedisServer;
let dataDir: string;
before(async () => {
  shared = await startRedisServer();
  dataDir = await mkdtemp(join(tmpdir(), 'trackscan-redis-store-'));
});
after(async () => {
  await shared?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

// openStore takes no prefix, so isolation comes from a fresh database number per test.
let nextDb = 0;
storeContract('redis', async () => {
  nextDb += 1;
  assert.ok(nextDb < 16, 'redis-server has 16 databases by default');
  return { dataDir, redisUrl: `${shared.url}/${nextDb}` };
});

test('redis: nothing is written to the data directory, and the secret is stored only as a hash', async (t) => {
  const dir = join(dataDir, 'unused');
  const store = await openStore({ dataDir: dir, redisUrl: `${shared.url}/15` });
  t.after(() => store.close());
  const { secret } = await store.createKey({ name: 'hashed', rateLimit: 20, monthlyLimit: 1000 });
  await assert.rejects(mkdtemp(join(dir, 'x')), { code: 'ENOENT' });

  const raw = createClient({ url: `${shared.url}/15` });
  await raw.connect();
  t.after(() => raw.close());
  let dump = '';
  for (const key of await raw.keys('*')) {
    dump += key;
    const type = await raw.type(key);
    if (type === 'string') dump += await raw.get(key);
    if (type === 'hash') dump += JSON.stringify(await raw.hGetAll(key));
    if (type === 'list') dump += (await raw.lRange(key, 0, -1)).join();
  }
  assert.ok(dump.includes(secret.slice(0, 12)), 'sanity: the display prefix is stored, so the search works');
  assert.equal(dump.includes(secret.slice(12)), false);
});

test('redis: counters and cache entries carry expiries', async (t) => {
  const url = `${shared.url}/14`;
  const store = await RedisStore.connect(url, 3600, 'ttl:');
  t.after(() => store.close());
  const now = new Date();
  await store.hitRequest('key_t', now);
  await store.reserveAnalysis('key_t', 10, now);
  await store.cache.set('entry', { a: 1 });
  const raw = createClient({ url });
  await raw.connect();
  t.after(() => raw.close());
  const minuteTtl = await raw.ttl(`ttl:rpm:key_t:${now.toISOString().slice(0, 16)}`);
  assert.ok(minuteTtl > 60 && minuteTtl <= 120, `minute counter TTL ${minuteTtl}`);
  const monthTtl = await raw.ttl(`ttl:apm:key_t:${now.toISOString().slice(0, 7)}`);
  assert.ok(monthTtl > 31 * 86400 && monthTtl <= 62 * 86400, `month counter TTL ${monthTtl}`);
  const cacheKeys = await raw.keys('ttl:cache*');
  assert.equal(cacheKeys.length, 1);
  const cacheTtl = await raw.ttl(cacheKeys[0]!);
  assert.ok(cacheTtl > 3500 && cacheTtl <= 3600, `cache TTL ${cacheTtl}`);
});

test('redis: an unreachable server fails at open', async (t) => {
  const gone = await startRedisServer();
  await gone.stop();
  const started = Date.now();
  await assert.rejects(openStore({ dataDir, redisUrl: gone.url }), /Cannot connect to Redis at redis:\/\/127\.0\.0\.1/);
  assert.ok(Date.now() - started < 10_000);
  t.diagnostic(`gave up after ${Date.now() - started} ms`);
});

test('redis: a server that comes up a moment after the service is waited for', async (t) => {
  const probe = await startRedisServer();
  await probe.stop();
  const opening = openStore({ dataDir, redisUrl: probe.url });
  opening.catch(() => {});
  await new Promise((r) => setTimeout(r, 1000));
  const late = await startRedisServer({ port: probe.port });
  t.after(() => late.stop());
  const store = await opening;
  t.after(() => store.close());
  assert.equal(await store.ping(), true);
});

test('redis: while the server is down every operation rejects (fail closed), and recovers when it returns', async (t) => {
  let redis = await startRedisServer();
  t.after(() => redis.stop());
  const store = await openStore({ dataDir, redisUrl: redis.url });
  t.after(() => store.close());
  const { secret } = await store.createKey({ name: 'k', rateLimit: 20, monthlyLimit: 1000 });
  const now = new Date();
  assert.equal(await store.hitRequest('key_f', now), 1);

  await redis.stop();
  const started = Date.now();
  await assert.rejects(store.hitRequest('key_f', now));
  await assert.rejects(store.reserveAnalysis('key_f', 1000, now));
  await assert.rejects(store.releaseAnalysis('key_f', now));
  await assert.rejects(store.findKey(secret));
  await assert.rejects(store.usage('key_f', now));
  await assert.rejects(store.cache.get('anything'));
  await assert.rejects(store.cache.set('anything', 1));
  assert.equal(await store.ping(), false);
  t.diagnostic(`all calls rejected within ${Date.now() - started} ms`);
  assert.ok(Date.now() - started < 5000, 'failures are prompt, not queued');

  // Same port, empty data (no persistence): the client reconnects by itself.
  redis = await startRedisServer({ port: redis.port });
  const deadline = Date.now() + 10_000;
  while (!(await store.ping())) {
    assert.ok(Date.now() < deadline, 'the store reconnected within 10 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(await store.hitRequest('key_f', now), 1);
  assert.equal(await store.reserveAnalysis('key_f', 1, now), true);
  assert.equal(await store.findKey(secret), null, 'the restarted server kept nothing, so the key is unknown');
});

test('redis: a server that stops answering makes calls reject after the deadline, and a late reservation is given back', async (t) => {
  const redis = await startRedisServer();
  t.after(() => redis.stop());
  const store = await openStore({ dataDir, redisUrl: redis.url });
  t.after(() => store.close());
  const { secret } = await store.createKey({ name: 'k', rateLimit: 20, monthlyLimit: 1000 });
  const now = new Date();
  assert.equal(await store.reserveAnalysis('key_h', 10, now), true);

  process.kill(redis.pid, 'SIGSTOP');
  let resumed = false;
  const resume = () => {
    if (!resumed) process.kill(redis.pid, 'SIGCONT');
    resumed = true;
  };
  t.after(resume);
  const started = Date.now();
  const outcomes = await Promise.allSettled([
    store.reserveAnalysis('key_h', 10, now),
    store.hitRequest('key_h', now),
    store.findKey(secret),
    store.usage('key_h', now),
    store.cache.get('anything'),
  ]);
  const elapsed = Date.now() - started;
  t.diagnostic(`calls to a paused server rejected after ${elapsed} ms`);
  assert.deepEqual(outcomes.map((o) => o.status), Array(5).fill('rejected'));
  assert.equal((outcomes[0] as PromiseRejectedResult).reason.code, 'ERR_STORE_TIMEOUT');
  // The lower bound shows the deadline, not a dropped connection, ended the calls; the upper one that they end.
  assert.ok(elapsed >= 1900 && elapsed < 8000, `rejected after ${elapsed} ms`);
  assert.equal(await store.ping(), false);

  resume();
  // The paused reservation lands when the server resumes; the store gives it back by itself.
  const deadline = Date.now() + 5000;
  let month = -1;
  while (Date.now() < deadline) {
    month = (await store.usage('key_h', now)).analysesThisMonth;
    if (month === 1) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(month, 1, 'only the reservation made before the pause remains');
  assert.equal(await store.ping(), true);
});
