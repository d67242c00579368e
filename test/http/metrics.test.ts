/**
 * /metrics after known traffic: each counter must move by exactly what the
 * requests made, the queue gauges must show a job held in the pool, the
 * endpoint must want its token, and no key, URL or address may appear.
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, test } from 'node:test';

import { analyzeStream } from '../../src/analysis/analyze-stream.js';
import type { AnalysisObject } from '../../src/analysis/types.js';
import { ConfigError } from '../../src/config.js';
import type { AnalyzeFunction } from '../../src/http/app.js';
import { metricsSettingsFromEnv } from '../../src/http/metrics.js';
import { makeAudio } from './helpers/audio.js';
import { multipart, postFile, problemOf, startHarness, startOrigin, type Harness } from './helpers/harness.js';

const cleanups: (() => unknown)[] = [];
const suite = { after: (fn: () => unknown) => cleanups.push(fn) };
after(async () => {
  for (const fn of cleanups.reverse()) await fn();
});

const TOKEN = 'metrics-test-token-0123456789';
let h: Harness;
/** Analyses wait on this gate before they start (normally open). */
let gate: Promise<void> = Promise.resolve();
const gatedAnalyze: AnalyzeFunction = async (source, options) => {
  await gate;
  return analyzeStream(source, options);
};

/** `name{sorted labels}` -> value, from the Prometheus text format. */
type Samples = Map<string, number>;

function parse(text: string): Samples {
  const samples: Samples = new Map();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(match, `a sample line: ${line}`);
    const labels = (match[2] ?? '')
      .split(/,(?=[a-zA-Z_]\w*=")/)
      .filter(Boolean)
      .sort()
      .join(',');
    samples.set(`${match[1]}{${labels}}`, Number(match[3]));
  }
  return samples;
}

/** The key of a sample, labels given in any order. */
function sample(name: string, labels: Record<string, string> = {}): string {
  return `${name}{${Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort()
    .join(',')}}`;
}

async function scrape(): Promise<{ text: string; samples: Samples }> {
  const res = await fetch(`${h.running.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  return { text, samples: parse(text) };
}

/** Value differences between two scrapes (absent counts as 0). */
function delta(before: Samples, after: Samples, key: string): number {
  return (after.get(key) ?? 0) - (before.get(key) ?? 0);
}

let mp3: Buffer;
let wavA: Buffer;
let wavB: Buffer;
let small: Buffer;
let wavLong: Buffer;
before(async () => {
  h = await startHarness(suite, {
    env: { TRACKSCAN_ALLOW_PRIVATE_URLS: '1', TRACKSCAN_CONCURRENCY: '1', TRACKSCAN_QUEUE_LENGTH: '0' },
    deps: { metrics: { enabled: true, token: TOKEN }, analyze: gatedAnalyze },
  });
  mp3 = await makeAudio(suite, 'mp3', 5);
  // Different lengths make different bytes: each is a fresh analysis.
  wavA = await makeAudio(suite, 'wav', 1);
  wavB = await makeAudio(suite, 'wav', 2);
  small = await makeAudio(suite, 'opus', 1);
  wavLong = await makeAudio(suite, 'wav', 20);
});

describe('the endpoint', () => {
  test('wants the bearer token', async () => {
    const none = await fetch(`${h.running.url}/metrics`);
    assert.equal(none.status, 401);
    assert.match(none.headers.get('www-authenticate') ?? '', /^Bearer/);
    const wrong = await fetch(`${h.running.url}/metrics`, { headers: { authorization: 'Bearer metrics-test-token-0123456780' } });
    assert.equal(wrong.status, 401);
    const { samples } = await scrape();
    assert.equal(samples.get(sample('trackscan_pool_concurrency')), 1);
    assert.equal(samples.get(sample('trackscan_pool_queue_length')), 0);
  });

  test('is absent when metrics are off', async (t) => {
    const off = await startHarness(t, { deps: { metrics: { enabled: false, token: null } } });
    const res = await fetch(`${off.running.url}/metrics`);
    assert.equal(res.status, 404);
    assert.equal((await problemOf(res)).code, 'not_found');
  });

  test('settings: on by default, validated once with a message naming the variable', () => {
    assert.deepEqual(metricsSettingsFromEnv({}), { enabled: true, token: null });
    assert.deepEqual(metricsSettingsFromEnv({ TRACKSCAN_METRICS: 'off' }), { enabled: false, token: null });
    assert.deepEqual(metricsSettingsFromEnv({ TRACKSCAN_METRICS: 'on', TRACKSCAN_METRICS_TOKEN: TOKEN }), { enabled: true, token: TOKEN });
    assert.throws(() => metricsSettingsFromEnv({ TRACKSCAN_METRICS: 'maybe' }), (err: unknown) => err instanceof ConfigError && /TRACKSCAN_METRICS:/.test(err.message));
    assert.throws(() => metricsSettingsFromEnv({ TRACKSCAN_METRICS_TOKEN: 'short' }), (err: unknown) => err instanceof ConfigError && /TRACKSCAN_METRICS_TOKEN/.test(err.message));
    assert.throws(() => metricsSettingsFromEnv({ TRACKSCAN_METRICS_TOKEN: 'has a space in it, sixteen+' }), ConfigError);
  });
});

describe('counters after known traffic', () => {
  const FILE = '/api/v1/analyze/file';
  const USAGE = '/api/v1/usage';
  const req = (route: string, status_class: string, method = 'POST') => sample('trackscan_http_requests_total', { method, route, status_class });
  const latencyCount = (route: string, status_class: string, method = 'POST') =>
    sample('trackscan_http_request_duration_seconds_count', { method, route, status_class });

  test('analyses, cache, errors, rate limits, page and unknown paths', async () => {
    const before = (await scrape()).samples;

    // A fresh analysis with details (to learn its duration), then the same bytes again: a cache hit.
    const fresh = await postFile(h, mp3, { details: 'true' });
    assert.equal(fresh.status, 200);
    const analysis = (await fresh.json()) as AnalysisObject;
    assert.equal(analysis.cached, false);
    const middle = (await scrape()).samples;
    assert.equal(delta(before, middle, sample('trackscan_analyses_total', { format: 'mp3', outcome: 'ok' })), 1);
    assert.equal(delta(before, middle, sample('trackscan_analysis_duration_seconds_count', { format: 'mp3' })), 1);
    const audio = delta(before, middle, sample('trackscan_analyzed_audio_seconds_total', { format: 'mp3' }));
    assert.ok(Math.abs(audio - analysis.details!.duration_s) < 1e-9, `audio seconds ${audio} vs ${analysis.details!.duration_s}`);

    const hit = await postFile(h, mp3, { details: 'true' });
    assert.equal(hit.status, 200);
    assert.equal(((await hit.json()) as AnalysisObject).cached, true);

    const usage = await h.call('/usage');
    assert.equal(usage.status, 200);
    const badKey = await postFile(h, mp3, {}, 'tsk_not_a_key_at_all');
    assert.equal(badKey.status, 401);
    const notAudio = await postFile(h, Buffer.from('plain words, not sound '.repeat(200)));
    assert.equal(notAudio.status, 415);

    // One key allowed one request a minute: the second is refused.
    const slow = await h.running.store.createKey({ name: 'one-a-minute', rateLimit: 1, monthlyLimit: 10 });
    assert.equal((await h.call('/usage', { key: slow.secret })).status, 200);
    assert.equal((await h.call('/usage', { key: slow.secret })).status, 429);
    // A key without monthly analyses: a fresh analysis is refused.
    const spent = await h.running.store.createKey({ name: 'no-quota', rateLimit: 100, monthlyLimit: 0 });
    const quota = await postFile(h, wavA, {}, spent.secret);
    assert.equal(quota.status, 429);
    assert.equal((await problemOf(quota)).code, 'quota_exceeded');

    assert.equal((await fetch(`${h.running.url}/`)).status, 200);
    assert.equal((await fetch(`${h.running.url}/no/such/${slow.record.id}`)).status, 404);

    const { text, samples: after } = await scrape();
    const d = (key: string) => delta(before, after, key);
    assert.equal(d(req(FILE, '2xx')), 2, 'two analyses answered');
    assert.equal(d(req(FILE, '4xx')), 3, '401, 415 and 429');
    assert.equal(d(latencyCount(FILE, '2xx')), 2);
    assert.equal(d(latencyCount(FILE, '4xx')), 3);
    assert.equal(d(req(USAGE, '2xx', 'GET')), 2);
    assert.equal(d(req(USAGE, '4xx', 'GET')), 1);
    assert.equal(d(req('/', '2xx', 'GET')), 1);
    assert.equal(d(req('unmatched', '4xx', 'GET')), 1);
    assert.equal(d(sample('trackscan_cache_requests_total', { source: 'file', result: 'miss' })), 1);
    assert.equal(d(sample('trackscan_cache_requests_total', { source: 'file', result: 'hit' })), 1);
    // The cache hit's analysis either finished first or was stopped by the hit: one of the two.
    const hitRun = delta(middle, after, sample('trackscan_analyses_total', { format: 'mp3', outcome: 'ok' })) +
      delta(middle, after, sample('trackscan_analyses_total', { format: 'unknown', outcome: 'aborted' }));
    assert.equal(hitRun, 1);
    assert.equal(d(sample('trackscan_http_problems_total', { route: FILE, code: 'invalid_api_key' })), 1);
    assert.equal(d(sample('trackscan_http_problems_total', { route: FILE, code: 'unsupported_media_type' })), 1);
    assert.equal(d(sample('trackscan_http_problems_total', { route: FILE, code: 'quota_exceeded' })), 1);
    assert.equal(d(sample('trackscan_http_problems_total', { route: USAGE, code: 'rate_limited' })), 1);
    assert.equal(d(sample('trackscan_rate_limit_refusals_total', { reason: 'rate_limited' })), 1);
    assert.equal(d(sample('trackscan_rate_limit_refusals_total', { reason: 'quota_exceeded' })), 1);
    assert.equal(d(sample('trackscan_queue_rejections_total')), 0);

    // Nothing that identifies a caller or a target.
    for (const secret of [h.key, slow.secret, slow.record.id, spent.record.id, 'one-a-minute', 'no-quota', 'tsk_', '127.0.0.1', '/no/such']) {
      assert.equal(text.includes(secret), false, `metrics mention ${secret}`);
    }
  });

  test('queue depth while a job holds the only slot, and the refusal beyond it', async () => {
    let open!: () => void;
    gate = new Promise<void>((resolve) => (open = resolve));
    const before = (await scrape()).samples;
    const held = postFile(h, wavB);
    // The gauge shows the job in its slot.
    const deadline = Date.now() + 10_000;
    for (;;) {
      const { samples } = await scrape();
      if (samples.get(sample('trackscan_pool_active')) === 1) break;
      assert.ok(Date.now() < deadline, 'the held job never took the slot');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const refused = await postFile(h, small);
    assert.equal(refused.status, 503);
    assert.equal((await problemOf(refused)).code, 'overloaded');
    open();
    gate = Promise.resolve();
    assert.equal((await held).status, 200);
    const after = (await scrape()).samples;
    assert.equal(delta(before, after, sample('trackscan_queue_rejections_total')), 1);
    assert.equal(delta(before, after, sample('trackscan_http_problems_total', { route: '/api/v1/analyze/file', code: 'overloaded' })), 1);
    assert.equal(delta(before, after, req(FILE, '5xx')), 1);
    assert.equal(after.get(sample('trackscan_pool_active')), 0);
    assert.equal(after.get(sample('trackscan_pool_queued')), 0);
  });

  test('a client that leaves mid-upload is counted as aborted, and so is its analysis', async () => {
    const before = (await scrape()).samples;
    const { body, contentType } = multipart([{ name: 'file', filename: 'a.wav', body: wavLong }]);
    const url = new URL(`${h.api}/analyze/file`);
    const request = httpRequest({
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      method: 'POST',
      headers: { 'content-type': contentType, 'content-length': String(body.length), 'x-api-key': h.key },
    });
    request.on('error', () => undefined);
    request.write(body.subarray(0, Math.floor(body.length / 2)));
    const waitFor = async (what: string, check: (s: Samples) => boolean): Promise<Samples> => {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const { samples } = await scrape();
        if (check(samples)) return samples;
        assert.ok(Date.now() < deadline, what);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    };
    await waitFor('the analysis never started', (s) => s.get(sample('trackscan_pool_active')) === 1);
    request.destroy();
    const after = await waitFor('the abort was never counted', (s) => delta(before, s, req(FILE, 'aborted')) === 1);
    assert.equal(delta(before, after, req(FILE, '2xx')), 0);
    await waitFor('the analysis was not stopped', (s) => s.get(sample('trackscan_pool_active')) === 0);
    const final = (await scrape()).samples;
    assert.equal(delta(before, final, sample('trackscan_analyses_total', { format: 'unknown', outcome: 'aborted' })), 1);
    assert.equal(delta(before, final, sample('trackscan_cache_requests_total', { source: 'file', result: 'miss' })), 0);
  });

  test('bytes downloaded for a URL analysis', async (t) => {
    const origin = await startOrigin(t, (_req, res) => {
      res.writeHead(200, { 'content-type': 'audio/mpeg' });
      res.end(mp3);
    });
    const before = (await scrape()).samples;
    const res = await h.call('/analyze/url', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${origin.url}/tune.mp3` }),
    });
    assert.equal(res.status, 200);
    const { text, samples: after } = await scrape();
    assert.equal(delta(before, after, sample('trackscan_download_bytes_total')), mp3.length);
    assert.equal(delta(before, after, sample('trackscan_cache_requests_total', { source: 'url', result: 'miss' })), 1);
    assert.equal(delta(before, after, req('/api/v1/analyze/url', '2xx')), 1);
    assert.equal(text.includes('tune.mp3'), false);
    assert.equal(text.includes(origin.url), false);
  });
});
