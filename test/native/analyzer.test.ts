/** The addon's contract: push/finish/close, types, one operation at a time, off the JS thread. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';

import { AnalysisError } from '../../src/errors.js';
import { Analyzer, AnalyzerOptionError, analyzerVersion } from '../../src/native/analyzer.js';
import { binding } from '../../src/native/binding.js';

function sine(freq: number, dbfs: number, seconds: number, rate: number, channels: number): Float32Array {
  const frames = Math.round(seconds * rate);
  const amp = 10 ** (dbfs / 20);
  const out = new Float32Array(frames * channels);
  for (let i = 0; i < frames; i++) {
    const v = amp * Math.sin((2 * Math.PI * freq * i) / rate);
    for (let c = 0; c < channels; c++) out[i * channels + c] = v;
  }
  return out;
}

test('analyzer_version is MAJOR.MINOR.PATCH', () => {
  assert.match(analyzerVersion(), /^\d+\.\d+\.\d+$/);
});

test('measures EBU Tech 3341 case 1 through the addon, in chunks of any size', async () => {
  const pcm = sine(1000, -23, 20, 48000, 2);
  for (const chunkFrames of [1, 4801, 1 << 20]) {
    const a = new Analyzer({ sampleRate: 48000, channels: 2, detectTempo: false, detectKey: false, detectTuning: false });
    // 1-frame chunks only for the first second: enough to exercise the path.
    const limit = chunkFrames === 1 ? 48000 * 2 : pcm.length;
    for (let i = 0; i < limit; i += chunkFrames * 2) await a.push(pcm.slice(i, Math.min(limit, i + chunkFrames * 2)));
    if (limit < pcm.length) await a.push(pcm.slice(limit));
    const r = await a.finish();
    assert.ok(Math.abs((r.loudness.integratedLufs ?? NaN) + 23) <= 0.1, `chunk ${chunkFrames}: ${r.loudness.integratedLufs}`);
    assert.equal(r.frames, 48000 * 20);
    assert.equal(r.loudness.shortTermLufs.length, 20);
  }
});

test('rejects bad options with a clear RangeError', () => {
  assert.throws(() => new Analyzer({ sampleRate: 44100.5, channels: 2 }), AnalyzerOptionError);
  assert.throws(() => new Analyzer({ sampleRate: 4000, channels: 2 }), /sampleRate to be an integer between 8000 and 384000 but received 4000/);
  assert.throws(() => new Analyzer({ sampleRate: 44100, channels: 9 }), /channels/);
  assert.throws(() => new Analyzer({ sampleRate: 44100, channels: 0 }), /channels/);
  // The native layer defends itself too, if the TS checks are bypassed.
  assert.throws(() => new binding.Analyzer({ sampleRate: 100, channels: 2 }), /invalid argument/);
  assert.throws(() => new (binding.Analyzer as unknown as new (x: unknown) => unknown)('nope'), TypeError);
});

test('push takes only Float32Array of whole frames', async () => {
  const a = new Analyzer({ sampleRate: 44100, channels: 2 });
  await assert.rejects(a.push(new Float64Array(4) as unknown as Float32Array), TypeError);
  await assert.rejects(a.push(new Float32Array(3)), /multiple of 2/);
  const raw = new binding.Analyzer({ sampleRate: 44100, channels: 2 });
  assert.throws(() => raw.push([1, 2] as unknown as Float32Array), TypeError);
  a.close();
  raw.close();
});

test('one native operation at a time: the raw addon refuses a second, the wrapper queues', async () => {
  const raw = new binding.Analyzer({ sampleRate: 44100, channels: 1 });
  const first = raw.push(new Float32Array(44100 * 5));
  assert.throws(() => raw.push(new Float32Array(10)), (err: Error & { code?: string }) => err.code === 'ERR_ANALYZER_BUSY');
  await first;
  raw.close();

  const a = new Analyzer({ sampleRate: 44100, channels: 1 });
  const pushes = Array.from({ length: 20 }, () => a.push(sine(440, -20, 0.5, 44100, 1)));
  const finished = a.finish();
  await Promise.all(pushes);
  const r = await finished;
  assert.equal(r.frames, 20 * 22050);
});

test('push and finish after finish, or after close, fail with ERR_ANALYZER_CLOSED', async () => {
  const a = new Analyzer({ sampleRate: 44100, channels: 1 });
  await a.push(new Float32Array(1000));
  await a.finish();
  await assert.rejects(a.push(new Float32Array(10)), (err: Error & { code?: string }) => err.code === 'ERR_ANALYZER_CLOSED');
  const b = new Analyzer({ sampleRate: 44100, channels: 1 });
  b.close();
  await assert.rejects(b.finish(), (err: unknown) => err instanceof AnalysisError && err.code === 'ERR_ANALYZER_CLOSED');
});

test('close during a push frees the analyzer once the push is over', async () => {
  const raw = new binding.Analyzer({ sampleRate: 48000, channels: 2 });
  const pending = raw.push(sine(440, -20, 30, 48000, 2));
  raw.close();
  await pending; // completes; the native memory goes with it
  assert.throws(() => raw.push(new Float32Array(2)), (err: Error & { code?: string }) => err.code === 'ERR_ANALYZER_CLOSED');
});

test('work runs off the JavaScript thread', async () => {
  const a = new Analyzer({ sampleRate: 48000, channels: 2 });
  const pcm = sine(440, -20, 120, 48000, 2);
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  const started = performance.now();
  await a.push(pcm);
  const elapsed = performance.now() - started;
  clearInterval(timer);
  await a.finish();
  // If push blocked the event loop, no timer could fire while it ran.
  if (elapsed > 20) assert.ok(ticks >= 3, `${ticks} ticks during a ${elapsed.toFixed(0)} ms push`);
});

test('NaN and infinite samples are replaced and reported, never crash', async () => {
  const a = new Analyzer({ sampleRate: 44100, channels: 2 });
  const pcm = sine(440, -20, 3, 44100, 2);
  pcm[100] = NaN;
  pcm[2000] = Infinity;
  pcm[3000] = -Infinity;
  await a.push(pcm);
  const r = await a.finish();
  assert.ok(r.warnings.includes('non_finite_samples_replaced'));
  assert.ok(Number.isFinite(r.loudness.integratedLufs));
});

test('digital silence has no loudness (null, not -Infinity)', async () => {
  const a = new Analyzer({ sampleRate: 44100, channels: 2 });
  await a.push(new Float32Array(44100 * 2 * 5));
  const r = await a.finish();
  assert.equal(r.loudness.integratedLufs, null);
  assert.equal(r.loudness.truePeakDbtp, null);
  assert.equal(r.loudness.samplePeakDbfs, null);
  assert.ok(r.warnings.includes('digital_silence'));
});

test('every supported rate and channel count works', async () => {
  for (const rate of [8000, 11025, 22050, 44100, 48000, 96000, 192000, 384000]) {
    for (const channels of [1, 2, 6, 8]) {
      const a = new Analyzer({ sampleRate: rate, channels });
      await a.push(sine(997, -20, 1.5, rate, channels));
      const r = await a.finish();
      assert.ok(Number.isFinite(r.loudness.integratedLufs), `${rate} Hz x ${channels}`);
    }
  }
});

test('analyzers dropped without close are collected (no leak)', () => {
  const script = `
    const { Analyzer } = await import(${JSON.stringify(new URL('../../src/native/analyzer.js', import.meta.url).href)});
    const pcm = new Float32Array(48000 * 2);
    const rss = () => process.memoryUsage().rss / 2 ** 20;
    async function round() {
      for (let i = 0; i < 200; i++) { const a = new Analyzer({ sampleRate: 48000, channels: 2 }); await a.push(pcm); }
      global.gc(); await new Promise((r) => setTimeout(r, 50)); global.gc();
    }
    await round(); const before = rss();
    for (let k = 0; k < 5; k++) await round();
    console.log(JSON.stringify({ before, after: rss() }));`;
  const r = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const { before, after } = JSON.parse(r.stdout) as { before: number; after: number };
  // 1000 more analyzers of ~2 MB of state each would add ~2 GB if leaked; when
  // V8 is not told about native memory, RSS climbs by hundreds of MB first.
  assert.ok(after - before < 60, `RSS grew from ${before.toFixed(0)} to ${after.toFixed(0)} MiB`);
});
