/** The analysis pool: bounded concurrency, bounded queue, aborts and close. */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { AppError } from '../../src/errors.js';
import { AnalysisPool } from '../../src/http/pool.js';

function gate(): { open: () => void; wait: Promise<void> } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { open, wait };
}

test('never more than `concurrency` at once; the queue is served in order', async () => {
  const pool = new AnalysisPool({ concurrency: 2, queueLength: 10 });
  let running = 0;
  let peak = 0;
  const order: number[] = [];
  const jobs = Array.from({ length: 8 }, (_, i) =>
    pool.run(async () => {
      running += 1;
      peak = Math.max(peak, running);
      order.push(i);
      await new Promise((r) => setTimeout(r, 5));
      running -= 1;
      return i;
    }),
  );
  assert.deepEqual(await Promise.all(jobs), [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.equal(peak, 2);
  assert.deepEqual(order, [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.deepEqual(pool.stats(), { active: 0, queued: 0, concurrency: 2, queueLength: 10 });
});

test('one past the queue is refused at once with 503 overloaded and Retry-After', async () => {
  const pool = new AnalysisPool({ concurrency: 1, queueLength: 1 });
  const g = gate();
  const first = pool.run(() => g.wait);
  const second = pool.run(async () => 'second');
  assert.equal(pool.saturated, true);
  await assert.rejects(pool.run(async () => 'third'), (err: unknown) => err instanceof AppError && err.code === 'overloaded' && (err.retryAfterSeconds ?? 0) >= 1);
  g.open();
  await first;
  assert.equal(await second, 'second');
});

test('a queued job whose request goes away leaves the queue', async () => {
  const pool = new AnalysisPool({ concurrency: 1, queueLength: 1 });
  const g = gate();
  const first = pool.run(() => g.wait);
  const controller = new AbortController();
  let ran = false;
  const queued = pool.run(async () => {
    ran = true;
  }, controller.signal);
  assert.equal(pool.stats().queued, 1);
  controller.abort(new Error('client left'));
  await assert.rejects(queued, /client left/);
  assert.equal(pool.stats().queued, 0);
  g.open();
  await first;
  assert.equal(ran, false);
  assert.equal(pool.stats().active, 0);
});

test('a failing job frees its slot', async () => {
  const pool = new AnalysisPool({ concurrency: 1, queueLength: 0 });
  await assert.rejects(pool.run(async () => Promise.reject(new Error('boom'))), /boom/);
  assert.equal(await pool.run(async () => 'next'), 'next');
});

test('close aborts running jobs, fails queued ones and refuses new ones', async () => {
  const pool = new AnalysisPool({ concurrency: 1, queueLength: 1 });
  const running = pool.run(
    (signal) =>
      new Promise((_resolve, reject) => {
        signal.addEventListener('abort', () => reject(signal.reason));
      }),
  );
  const queued = pool.run(async () => 'never');
  pool.close();
  await assert.rejects(running, (err: unknown) => err instanceof AppError && err.code === 'unavailable');
  await assert.rejects(queued, (err: unknown) => err instanceof AppError && err.code === 'unavailable');
  await assert.rejects(pool.run(async () => 'late'), (err: unknown) => err instanceof AppError && err.code === 'unavailable');
});

test('bad sizes are refused', () => {
  assert.throws(() => new AnalysisPool({ concurrency: 0, queueLength: 1 }), RangeError);
  assert.throws(() => new AnalysisPool({ concurrency: 1, queueLength: -1 }), RangeError);
});
