/**
 * format=spotify over real HTTP: the same file (and the same URL) answered
 * natively and in Spotify's audio-features conventions must agree field by
 * field; the parameter is checked; errors stay problem documents.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { TONICS } from '../../src/analysis/key-names.js';
import type { SpotifyAudioFeatures } from '../../src/analysis/spotify.js';
import type { AnalysisObject } from '../../src/analysis/types.js';
import { makeAudio } from './helpers/audio.js';
import { problemOf, startHarness, startOrigin, type Harness } from './helpers/harness.js';

const cleanups: (() => unknown)[] = [];
const suite = { after: (fn: () => unknown) => cleanups.push(fn) };
after(async () => {
  for (const fn of cleanups.reverse()) await fn();
});

let h: Harness;
let flac: Buffer;
let ogg: Buffer;
before(async () => {
  h = await startHarness(suite, { env: { TRACKSCAN_ALLOW_PRIVATE_URLS: '1' } });
  flac = await makeAudio(suite, 'flac', 8);
  ogg = await makeAudio(suite, 'ogg', 6);
});

function upload(bytes: Buffer, query = '', fields: Record<string, string> = {}): Promise<Response> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('file', new Blob([bytes]), 'audio.bin');
  return h.call(`/analyze/file${query}`, { method: 'POST', body: form });
}

/** Every Spotify field against the native answer for the same audio. */
function assertAgrees(s: SpotifyAudioFeatures, n: AnalysisObject): void {
  assert.equal(s.type, 'audio_features');
  assert.equal(s.tempo, n.bpm);
  assert.equal(s.tempo_confidence, n.bpm === null ? null : n.bpm_confidence);
  if (n.key === null) {
    assert.equal(s.key, -1);
    assert.equal(s.mode, -1);
    assert.equal(s.key_confidence, null);
  } else {
    const [tonic, mode] = n.key.split(' ');
    assert.equal(s.key, (TONICS as readonly string[]).indexOf(tonic!));
    assert.equal(s.mode, mode === 'major' ? 1 : 0);
    assert.equal(s.key_confidence, n.key_confidence);
    assert.equal(s.mode_confidence, n.key_confidence);
  }
  assert.equal(s.loudness, n.lufs);
  assert.equal(s.duration_ms, Math.round(n.details!.duration_s * 1000));
  assert.equal(s.time_signature, null);
  assert.equal(s.trackscan.key_name, n.key);
  assert.equal(s.trackscan.key_camelot, n.details!.key_camelot);
  assert.equal(s.trackscan.key_open_key, n.details!.key_open_key);
  assert.equal(s.trackscan.hz, n.hz);
  assert.equal(s.trackscan.hz_confidence, n.hz_confidence);
  assert.equal(s.trackscan.tuning_cents, n.details!.tuning_cents);
  assert.deepEqual(s.trackscan.loudness_detail, n.loudness_detail);
  assert.equal(s.trackscan.analyzer_version, n.analyzer_version);
  assert.equal('details' in s, false);
  assert.equal('bpm' in s, false);
}

test('a file: Spotify first (fresh), then native (cached): the same analysis in both shapes', async () => {
  const res = await upload(flac, '?format=spotify');
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.ok(res.headers.get('ratelimit-limit'), 'rate-limit headers as on every answer');
  const s = (await res.json()) as SpotifyAudioFeatures;
  assert.equal(s.trackscan.cached, false);
  // The Spotify answer needed the details (duration); the same switches are now cached.
  const native = await upload(flac, '', { details: 'true' });
  const n = (await native.json()) as AnalysisObject;
  assert.equal(n.cached, true);
  assertAgrees(s, n);
  // duration_ms is the file's real length (8 s of generated audio).
  assert.ok(Math.abs(s.duration_ms! - 8000) < 100, `duration_ms ${s.duration_ms}`);
});

test('a file: native first (fresh), then Spotify with details=false still carries duration_ms', async () => {
  const native = await upload(ogg, '', { details: 'true' });
  const n = (await native.json()) as AnalysisObject;
  assert.equal(n.cached, false);
  const res = await upload(ogg, '?format=spotify', { details: 'false' });
  assert.equal(res.status, 200);
  const s = (await res.json()) as SpotifyAudioFeatures;
  assertAgrees(s, n);
});

test('format=native is the default shape', async () => {
  const res = await upload(ogg, '?format=native');
  const body = (await res.json()) as AnalysisObject;
  assert.equal(res.status, 200);
  assert.equal(typeof body.analyzer_version, 'string');
  assert.equal('details' in body, false);
  assert.equal('tempo' in body, false);
});

test('switches off: key -1, mode -1, tempo null', async () => {
  const res = await upload(ogg, '?format=spotify', { detect_bpm: 'false', detect_key: 'false', detect_hz: 'false' });
  const s = (await res.json()) as SpotifyAudioFeatures;
  assert.equal(res.status, 200);
  assert.equal(s.tempo, null);
  assert.equal(s.tempo_confidence, null);
  assert.equal(s.key, -1);
  assert.equal(s.mode, -1);
  assert.equal(s.trackscan.hz, null);
  assert.equal(typeof s.loudness, 'number');
});

test('a URL: Spotify and native agree', async (t) => {
  const origin = await startOrigin(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'audio/flac' });
    res.end(flac);
  });
  const body = JSON.stringify({ url: `${origin.url}/song.flac`, details: true });
  const post = (query: string) => h.call(`/analyze/url${query}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const s = (await (await post('?format=spotify')).json()) as SpotifyAudioFeatures;
  const n = (await (await post('')).json()) as AnalysisObject;
  assertAgrees(s, n);
  assert.equal(origin.hits.get('/song.flac'), 1, 'the second answer came from the cache');
});

test('an unknown format is 400 invalid_request; errors stay problem documents under format=spotify', async () => {
  for (const query of ['?format=xml', '?format=spotify&format=native', '?format=']) {
    const res = await upload(ogg, query);
    assert.equal(res.status, 400, query);
    const problem = await problemOf(res);
    assert.equal(problem.code, 'invalid_request');
    assert.match(problem.detail, /format/);
  }
  const res = await upload(Buffer.from('not audio at all, just words '.repeat(100)), '?format=spotify');
  assert.equal(res.status, 415);
  assert.equal((await problemOf(res)).code, 'unsupported_media_type');
  const noKey = await h.call('/analyze/file?format=spotify', { method: 'POST', key: null });
  assert.equal(noKey.status, 401);
});
