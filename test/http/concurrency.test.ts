/**
 * The analysis pool over HTTP: with every slot busy and analyses queued,
 * cached answers, usage and health are answered at once.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { makeAudio } from './helpers/audio.js';
import { postUrl, startHarness, startOrigin } from './helpers/harness.js';

test('cached answers, usage and health do not wait behind analyses', async (t) => {
  const h = await startHarness(t, { env: { TRACKSCAN_CONCURRENCY: '1', TRACKSCAN_QUEUE_LENGTH: '4', TRACKSCAN_ALLOW_PRIVATE_URLS: '1' } });
  const mp3 = await makeAudio(t, 'mp3', 2);
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const origin = await startOrigin(t, (req, res) => {
    res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': String(mp3.length) });
    if (req.url === '/quick.mp3') {
      res.end(mp3);
      return;
    }
    // Slow media: half now, the rest when the test says.
    res.write(mp3.subarray(0, mp3.length >> 1));
    void released.then(() => res.end(mp3.subarray(mp3.length >> 1)));
  });
  const quick = await postUrl(h, { url: `${origin.url}/quick.mp3` });
  assert.equal(quick.status, 200);
  await quick.arrayBuffer();

  // One analysis holds the only slot, three more wait in the queue.
  const slow = ['/slow-1.mp3', '/slow-2.mp3', '/slow-3.mp3', '/slow-4.mp3'].map((path) => postUrl(h, { url: `${origin.url}${path}` }));
  const pool = () => (h.running.app.locals.context as { pool: { stats(): { active: number; queued: number } } }).pool.stats();
  for (let i = 0; i < 200 && pool().queued < 3; i++) await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual({ active: pool().active, queued: pool().queued }, { active: 1, queued: 3 });

  const timed = async (call: () => Promise<Response>): Promise<{ status: number; ms: number; body: Record<string, unknown> }> => {
    const started = performance.now();
    const res = await call();
    const body = (await res.json()) as Record<string, unknown>;
    return { status: res.status, ms: performance.now() - started, body };
  };
  const cached = await timed(() => postUrl(h, { url: `${origin.url}/quick.mp3` }));
  const usage = await timed(() => h.call('/usage'));
  const health = await timed(() => h.call('/health', { key: null }));
  assert.equal(cached.status, 200);
  assert.equal(cached.body.cached, true);
  assert.equal(usage.status, 200);
  assert.equal(health.status, 200);
  // The slow analyses are held until release(), so anything queued behind them would
  // never answer; the bound only catches something slow, generous for a loaded machine.
  for (const [name, r] of Object.entries({ cached, usage, health })) assert.ok(r.ms < 3000, `${name} took ${r.ms} ms`);
  // Still all waiting: the quick answers did not come from a freed slot.
  assert.equal(pool().queued, 3);

  release();
  const answers = await Promise.all(slow);
  assert.deepEqual(answers.map((r) => r.status), [200, 200, 200, 200]);
  await Promise.all(answers.map((r) => r.arrayBuffer()));
});
