/**
 * Behaviour every Store backend must show, run against SQLite and Redis by
 * sqlite-store.test.ts and redis-store.test.ts. Not a test file itself.
 */
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { generateSecret } from '../../src/store/api-keys.js';
import type { OpenStoreOptions } from '../../src/store/open-store.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';

/** Gives the options of a fresh, empty backend; the backend lives until the test ends. */
export type BackendFactory = (t: { after(fn: () => unknown): void }) => Promise<OpenStoreOptions>;

// Dates near the real clock: Redis expires counters by the wall clock (EXPIREAT), so a
// counter for a month long past would vanish at once.
const MINUTE_START = Math.floor(Date.now() / 60_000) * 60_000;
const NOW = new Date(MINUTE_START + 56_789);
/** The `now` every hammer child counts with (usage reads for the hammered key must use it). */
export const HAMMER_NOW = NOW;
const SAME_MINUTE = new Date(MINUTE_START + 1_000);
const NEXT_MINUTE = new Date(MINUTE_START + 60_000);
const LAST_MONTH = new Date(Date.UTC(NOW.getUTCFullYear(), NOW.getUTCMonth(), 1) - 1);

async function open(t: { after(fn: () => unknown): void }, options: OpenStoreOptions): Promise<Store> {
  const store = await openStore(options);
  t.after(() => store.close());
  return store;
}

async function sleep(ms: number): Promise<void> {
  await new Promise((r) => setTimeout(r, ms));
}

/** Registers the contract tests for one backend. */
export function storeContract(backend: string, fresh: BackendFactory): void {
  test(`${backend}: keys are created, found, listed and revoked`, async (t) => {
    const options = await fresh(t);
    const store = await open(t, options);
    assert.equal(await store.countKeys(), 0);

    const a = await store.createKey({ name: 'alpha', rateLimit: 20, monthlyLimit: 1000 });
    const b = await store.createKey({ name: 'beta', rateLimit: 5, monthlyLimit: 0 });
    assert.match(a.secret, /^tsk_[0-9A-Za-z]{49}$/);
    assert.notEqual(a.secret, b.secret);
    assert.notEqual(a.record.id, b.record.id);
    assert.ok(!a.secret.includes(a.record.id) && !a.record.id.includes(a.secret.slice(4, 12)), 'the id is not derived from the secret');
    assert.ok(a.secret.startsWith(a.record.displayPrefix) && a.record.displayPrefix.length < 16);
    assert.deepEqual(Object.keys(a.record).sort(), ['createdAt', 'displayPrefix', 'id', 'monthlyLimit', 'name', 'rateLimit', 'revokedAt']);
    assert.equal(a.record.revokedAt, null);

    assert.deepEqual(await store.findKey(a.secret), a.record);
    assert.deepEqual(await store.findKey(b.secret), b.record);
    assert.equal(await store.findKey(generateSecret()), null, 'a well-formed key that was never issued');
    const lastChar = a.secret.at(-1) === 'A' ? 'B' : 'A';
    assert.equal(await store.findKey(a.secret.slice(0, -1) + lastChar), null, 'one character off');
    assert.equal(await store.findKey(''), null);
    assert.equal(await store.findKey(a.record.id), null, 'the public id is not a key');
    assert.equal(await store.findKey(a.record.displayPrefix), null);

    assert.deepEqual(await store.listKeys(), [a.record, b.record]);
    assert.equal(await store.countKeys(), 2);

    assert.equal(await store.revokeKey(a.record.id), true);
    assert.equal(await store.revokeKey(a.record.id), false, 'already revoked');
    assert.equal(await store.revokeKey('key_doesnotexist00'), false);
    assert.equal(await store.findKey(a.secret), null, 'revoked keys are refused at once');
    assert.deepEqual(await store.findKey(b.secret), b.record);
    const listed = await store.listKeys();
    assert.equal(listed.length, 2);
    assert.match(listed[0]!.revokedAt ?? '', /^\d{4}-\d\d-\d\dT/);
    assert.equal(listed[1]!.revokedAt, null);
    assert.equal(await store.countKeys(), 2, 'revoked keys still count: the store is not empty');

    await assert.rejects(store.createKey({ name: '', rateLimit: 20, monthlyLimit: 1000 }), TypeError);
    await assert.rejects(store.createKey({ name: 'x', rateLimit: 0, monthlyLimit: 1000 }), RangeError);
    await assert.rejects(store.createKey({ name: 'x', rateLimit: 20, monthlyLimit: -1 }), RangeError);
    await assert.rejects(store.createKey({ name: 'x', rateLimit: 1.5, monthlyLimit: 1 }), RangeError);
  });

  test(`${backend}: createFirstKey creates one key on an empty store, even when raced`, async (t) => {
    const options = await fresh(t);
    const a = await open(t, options);
    const b = await open(t, options);
    const input = { name: 'default', rateLimit: 20, monthlyLimit: 1000 };
    const results = await Promise.all([a, b, a, b, a, b].map((s) => s.createFirstKey!(input)));
    const created = results.filter((r) => r !== null);
    assert.equal(created.length, 1);
    assert.equal(await a.countKeys(), 1);
    assert.deepEqual(await b.findKey(created[0]!.secret), created[0]!.record);
    await a.revokeKey(created[0]!.record.id);
    assert.equal(await b.createFirstKey!(input), null, 'a store with only revoked keys is not empty');
  });

  test(`${backend}: a key revoked through one store instance is refused by another at once`, async (t) => {
    const options = await fresh(t);
    const server = await open(t, options);
    const cli = await open(t, options);
    const { record, secret } = await cli.createKey({ name: 'shared', rateLimit: 20, monthlyLimit: 1000 });
    assert.deepEqual(await server.findKey(secret), record);
    assert.equal(await cli.revokeKey(record.id), true);
    assert.equal(await server.findKey(secret), null);
  });

  test(`${backend}: 200 concurrent request hits in one process count exactly`, async (t) => {
    const store = await open(t, await fresh(t));
    const counts = await Promise.all(Array.from({ length: 200 }, (_, i) => store.hitRequest('key_a', i % 2 ? NOW : SAME_MINUTE)));
    assert.deepEqual([...counts].sort((x, y) => x - y), Array.from({ length: 200 }, (_, i) => i + 1), 'each hit sees a distinct count');
    assert.deepEqual(await store.usage('key_a', NOW), { requestsThisMinute: 200, analysesThisMonth: 0 });
    assert.equal(await store.hitRequest('key_a', NEXT_MINUTE), 1, 'a new minute starts at one');
    assert.equal(await store.hitRequest('key_b', NOW), 1, 'keys count separately');
    assert.deepEqual(await store.usage('key_a', NEXT_MINUTE), { requestsThisMinute: 1, analysesThisMonth: 0 });
    assert.deepEqual(await store.usage('key_never', NOW), { requestsThisMinute: 0, analysesThisMonth: 0 });
  });

  test(`${backend}: 200 concurrent reservations never exceed the quota; releases give back`, async (t) => {
    const store = await open(t, await fresh(t));
    const granted = await Promise.all(Array.from({ length: 200 }, () => store.reserveAnalysis('key_q', 150, NOW)));
    assert.equal(granted.filter(Boolean).length, 150);
    assert.equal((await store.usage('key_q', NOW)).analysesThisMonth, 150);
    assert.equal(await store.reserveAnalysis('key_q', 150, NOW), false, 'the quota is used up');

    // Releases racing with reservations under a roomy limit: each cancels one.
    const mixed = await Promise.all(
      Array.from({ length: 200 }, (_, i) => (i % 2 ? store.releaseAnalysis('key_q', NOW).then(() => 'released') : store.reserveAnalysis('key_q', 1000, NOW))),
    );
    assert.equal(mixed.filter((x) => x === true).length, 100);
    assert.equal((await store.usage('key_q', NOW)).analysesThisMonth, 150);

    // A release gives the quota back to the tight limit too.
    await store.releaseAnalysis('key_q', NOW);
    assert.equal(await store.reserveAnalysis('key_q', 150, NOW), true);
    assert.equal(await store.reserveAnalysis('key_q', 150, NOW), false);

    // A release lands in the month of the reservation, and never goes below zero.
    assert.equal(await store.reserveAnalysis('key_q', 150, LAST_MONTH), true);
    await store.releaseAnalysis('key_q', LAST_MONTH);
    await store.releaseAnalysis('key_q', LAST_MONTH);
    assert.equal((await store.usage('key_q', LAST_MONTH)).analysesThisMonth, 0);
    assert.equal((await store.usage('key_q', NOW)).analysesThisMonth, 150);
    assert.equal(await store.reserveAnalysis('key_q', 1, LAST_MONTH), true, 'no negative count left to absorb a reservation');
    assert.equal(await store.reserveAnalysis('key_q', 1, LAST_MONTH), false);

    assert.equal(await store.reserveAnalysis('key_zero', 0, NOW), false, 'a zero quota grants nothing');
    assert.equal((await store.usage('key_zero', NOW)).analysesThisMonth, 0);
  });

  test(`${backend}: the result cache stores, expires and is shared by instances`, async (t) => {
    const options = await fresh(t);
    const store = await open(t, { ...options, cacheTtlSeconds: 1 });
    const other = await open(t, options);
    const value = { bpm: 128, key: 'A minor', nested: { list: [1, 2, 3] } };
    await store.cache.set('upload:abc', value);
    assert.deepEqual(await store.cache.get('upload:abc'), value);
    assert.deepEqual(await other.cache.get('upload:abc'), value, 'another instance on the same backend sees it');
    assert.equal(await store.cache.get('upload:missing'), undefined);

    await store.cache.set('short', 'lived', 600);
    assert.equal(await store.cache.get('short'), 'lived');
    await sleep(1300);
    assert.equal(await store.cache.get('short'), undefined, 'an explicit TTL expires');
    assert.equal(await store.cache.get('upload:abc'), undefined, 'the default TTL (cacheTtlSeconds) expires');
    assert.equal(await other.cache.get('upload:abc'), undefined);

    await other.cache.set('k', 1);
    assert.equal(await other.cache.delete('k'), true);
    assert.equal(await other.cache.get('k'), undefined);
  });

  test(`${backend}: ping is true while open, and close() is final`, async (t) => {
    const store = await openStore(await fresh(t));
    assert.equal(await store.ping(), true);
    await store.close();
    assert.equal(await store.ping(), false);
    await assert.rejects(store.hitRequest('key_a', NOW));
    await assert.rejects(store.findKey(generateSecret()));
    await assert.rejects(store.cache.get('entry'), 'the cache does not reopen a closed backend');
    await store.close();
  });

  test(`${backend}: two processes hammering one key leave exact counts`, async (t) => {
    const options = await fresh(t);
    const result = await hammerFromTwoProcesses(options, { hits: 100, reserves: 100, limit: 150, releases: 30 });
    t.diagnostic(`burst of 2 x 200 operations took ${result.burstMs} ms, both processes busy together for ${result.overlapMs} ms`);
    const store = await open(t, options);
    assert.equal(result.hitsSeen.length, 200);
    assert.deepEqual([...result.hitsSeen].sort((x, y) => x - y), Array.from({ length: 200 }, (_, i) => i + 1), 'no count seen twice, none lost');
    assert.equal(result.granted, 150, 'exactly the quota granted across both processes');
    const usage = await store.usage('key_hammer', NOW);
    assert.deepEqual(usage, { requestsThisMinute: 200, analysesThisMonth: 150 - 60 });
  });

  test(`${backend}: two processes contending for a while still count exactly`, async (t) => {
    // The 200-operation bursts above can finish before the other process starts; these are
    // long enough to overlap. A run without overlap proves nothing, so try again (fresh key).
    const options = await fresh(t);
    const store = await open(t, options);
    let overlapped = false;
    for (let run = 0; run < 3 && !overlapped; run++) {
      const keyId = `key_long_${run}`;
      const r = await hammerFromTwoProcesses(options, { hits: 1000, reserves: 1000, limit: 1500, releases: 250 }, keyId);
      t.diagnostic(`run ${run}: 2 x 2000 operations in ${r.burstMs} ms, both processes busy together for ${r.overlapMs} ms`);
      assert.ok([...r.hitsSeen].sort((x, y) => x - y).every((v, i) => v === i + 1) && r.hitsSeen.length === 2000);
      assert.equal(r.granted, 1500);
      assert.deepEqual(await store.usage(keyId, NOW), { requestsThisMinute: 2000, analysesThisMonth: 1000 });
      overlapped = r.overlapMs > 0;
    }
    assert.ok(overlapped, 'the two processes never ran at the same time');
  });
}

interface HammerPlan {
  hits: number;
  reserves: number;
  limit: number;
  releases: number;
}

/**
 * Forks two children (hammer-child.js) on the same backend, lets them start
 * their concurrent bursts together, and collects what each saw.
 */
export async function hammerFromTwoProcesses(
  options: OpenStoreOptions,
  plan: HammerPlan,
  keyId = 'key_hammer',
): Promise<{ hitsSeen: number[]; granted: number; burstMs: number; overlapMs: number }> {
  const script = fileURLToPath(new URL('./hammer-child.js', import.meta.url));
  const config = JSON.stringify({ options, plan, keyId, now: NOW.toISOString() });
  const children = [0, 1].map(() => fork(script, [config], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
  const exits = children.map(
    (c) =>
      new Promise<void>((resolve, reject) => {
        c.once('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`hammer child exited with ${code ?? signal}`))));
      }),
  );
  exits.forEach((e) => e.catch(() => {}));
  const next = (c: (typeof children)[number]) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      c.once('message', (m) => resolve(m as Record<string, unknown>));
      c.once('exit', (code) => reject(new Error(`hammer child exited early with ${code}`)));
    });
  try {
    await Promise.all(children.map(next)); // both opened the store
    // Phase 1 together: hits and reservations, interleaved, in both processes at once.
    const started = performance.now();
    const burstAt = Date.now() + 100;
    const burst = await Promise.all(children.map((c) => (c.send({ burstAt }), next(c))));
    const burstMs = Math.round(performance.now() - started);
    // Phase 2 only after both bursts, so a release cannot make room for a late reservation.
    await Promise.all(children.map((c) => (c.send('release'), next(c))));
    children.forEach((c) => c.send('exit'));
    await Promise.all(exits);
    return {
      hitsSeen: burst.flatMap((b) => b.hits as number[]),
      granted: burst.reduce((sum, b) => sum + (b.granted as number), 0),
      burstMs,
      // How long both children were firing at once: the test only means something if this is > 0.
      overlapMs: Math.min(...burst.map((b) => b.endedAt as number)) - Math.max(...burst.map((b) => b.startedAt as number)),
    };
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill();
  }
}
