/**
 * Authentication, usage accounting and rate-limit headers over real HTTP,
 * and health without a key.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { makeAudio } from './helpers/audio.js';
import { postFile, postUrl, problemOf, startHarness, type Harness } from './helpers/harness.js';

const cleanups: (() => unknown)[] = [];
const suite = { after: (fn: () => unknown) => cleanups.push(fn) };
after(async () => {
  for (const fn of cleanups.reverse()) await fn();
});

let h: Harness;
let mp3: Buffer;
before(async () => {
  h = await startHarness(suite);
  mp3 = await makeAudio(suite, 'mp3', 2);
});

interface Usage {
  api_key_name: string;
  requests_this_minute: number;
  rate_limit: number;
  analyses_this_month: number;
  monthly_limit: number;
}

describe('usage', () => {
  test('the first-start key has SPEC defaults and counts its own usage request', async () => {
    const res = await h.call('/usage', { key: h.firstKey });
    const usage = (await res.json()) as Usage;
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(usage).sort(), ['analyses_this_month', 'api_key_name', 'monthly_limit', 'rate_limit', 'requests_this_minute']);
    assert.equal(usage.rate_limit, 20);
    assert.equal(usage.monthly_limit, 1000);
    assert.ok(usage.requests_this_minute >= 1);
  });

  test('every authenticated request counts; fresh analyses count once; failures and hits never', async (t) => {
    // A server clock the test moves, so minutes and months turn when the test says.
    let now = new Date(Date.UTC(2026, 10, 22, 10, 0, 30));
    const timed = await startHarness(t, { deps: { now: () => now } });
    const { secret } = await timed.running.store.createKey({ name: 'counting', rateLimit: 50, monthlyLimit: 10 });
    const first = (await (await timed.call('/usage', { key: secret })).json()) as Usage;
    assert.deepEqual(first, { api_key_name: 'counting', requests_this_minute: 1, rate_limit: 50, analyses_this_month: 0, monthly_limit: 10 });

    assert.equal((await postFile(timed, mp3, {}, secret)).status, 200); // fresh: counts
    assert.equal((await postFile(timed, mp3, {}, secret)).status, 200); // cache hit: does not
    assert.equal((await postFile(timed, Buffer.from('not audio at all, not at all'), {}, secret)).status, 415); // failure: does not
    assert.equal((await postUrl(timed, { url: 'http://127.0.0.1/x.mp3' }, secret)).status, 400); // refused: does not
    assert.equal((await postUrl(timed, '{bad json', secret)).status, 400);

    const res = await timed.call('/usage', { key: secret });
    const usage = (await res.json()) as Usage;
    assert.equal(usage.requests_this_minute, 7);
    assert.equal(usage.analyses_this_month, 1);
    assert.equal(res.headers.get('ratelimit-limit'), '50');
    assert.equal(res.headers.get('ratelimit-remaining'), '43');
    assert.equal(res.headers.get('ratelimit-reset'), '30');

    // The next UTC minute starts from zero; the month keeps its analyses.
    now = new Date(Date.UTC(2026, 10, 22, 10, 1, 5));
    const nextMinute = (await (await timed.call('/usage', { key: secret })).json()) as Usage;
    assert.equal(nextMinute.requests_this_minute, 1);
    assert.equal(nextMinute.analyses_this_month, 1);
    // The next UTC month starts from zero analyses.
    now = new Date(Date.UTC(2026, 11, 1, 0, 0, 1));
    const nextMonth = (await (await timed.call('/usage', { key: secret })).json()) as Usage;
    assert.equal(nextMonth.analyses_this_month, 0);
  });

  test('a key hammered by parallel requests is counted exactly', async (t) => {
    const now = new Date(Date.UTC(2026, 10, 22, 10, 0, 0));
    const timed = await startHarness(t, { deps: { now: () => now } });
    const { secret } = await timed.running.store.createKey({ name: 'parallel', rateLimit: 150, monthlyLimit: 10 });
    const answers = await Promise.all(Array.from({ length: 200 }, () => timed.call('/usage', { key: secret })));
    await Promise.all(answers.map((r) => r.arrayBuffer()));
    // Exactly the allowance gets through, the rest is refused.
    assert.equal(answers.filter((r) => r.status === 200).length, 150);
    assert.equal(answers.filter((r) => r.status === 429).length, 50);
    const counted = await timed.running.store.usage((await timed.running.store.findKey(secret))!.id, now);
    assert.equal(counted.requestsThisMinute, 200);
  });

  test('rate-limit headers are on errors of authenticated requests too, not on 401', async () => {
    const bad = await postUrl(h, { url: 42 });
    assert.equal(bad.status, 400);
    assert.ok(bad.headers.get('ratelimit-limit'));
    assert.ok(bad.headers.get('ratelimit-remaining'));
    const unauth = await h.call('/usage', { key: null });
    assert.equal(unauth.status, 401);
    assert.equal(unauth.headers.get('ratelimit-limit'), null);
  });

});

describe('health', () => {
  test('no key needed, a key is ignored, and it reports decoder, store and pool', async () => {
    for (const key of [null, h.key, 'tsk_garbage']) {
      const res = await h.call('/health', { key });
      const body = (await res.json()) as { status: string; checks: { decoder: { status: string }; store: { status: string; backend: string } } };
      assert.equal(res.status, 200);
      assert.equal(body.status, 'ok');
      assert.equal(body.checks.decoder.status, 'ok');
      assert.equal(body.checks.store.status, 'ok');
      assert.equal(body.checks.store.backend, 'sqlite');
      assert.equal(res.headers.get('ratelimit-limit'), null);
    }
  });
  test('degraded without a decoder; 503 problem when the store is down', async (t) => {
    const noDecoder = await startHarness(t, { deps: { checkDecoder: async () => false } });
    const degraded = (await (await noDecoder.call('/health', { key: null })).json()) as { status: string };
    assert.equal(degraded.status, 'degraded');

    const broken = await startHarness(t);
    const store = broken.running.store;
    const ping = store.ping.bind(store);
    store.ping = async () => false;
    t.after(() => {
      store.ping = ping;
    });
    const res = await broken.call('/health', { key: null });
    const problem = (await problemOf(res)) as unknown as { code: string; health: { status: string } };
    assert.equal(res.status, 503);
    assert.equal(problem.code, 'unavailable');
    assert.equal(problem.health.status, 'unavailable');
    assert.ok(Number(res.headers.get('retry-after')) >= 1);
  });
  test('a failing store fails requests closed with 503, never lets them through', async (t) => {
    const broken = await startHarness(t);
    const store = broken.running.store;
    const hit = store.hitRequest.bind(store);
    store.hitRequest = async () => {
      throw new Error('connection lost');
    };
    t.after(() => {
      store.hitRequest = hit;
    });
    const res = await broken.call('/usage');
    const problem = await problemOf(res);
    assert.equal(res.status, 503);
    assert.equal(problem.code, 'unavailable');
  });
});
