/** The Spotify projection as a pure function: every key, every null, the units. */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { camelot, keyName, openKey } from '../../src/analysis/key-names.js';
import { parseKeyName, toSpotify } from '../../src/analysis/spotify.js';
import type { AnalysisObject } from '../../src/analysis/types.js';

function analysis(overrides: Partial<AnalysisObject> = {}): AnalysisObject {
  return {
    bpm: 128.4,
    bpm_confidence: 0.81,
    key: 'F# minor',
    key_confidence: 0.62,
    hz: 441.3,
    hz_confidence: 0.9,
    lufs: -9.87,
    loudness_detail: { integrated_lufs: -9.87, loudness_range: 5.2, true_peak_dbtp: -0.4, sample_peak_dbfs: -0.61 },
    analysis_time: 1.234,
    cached: false,
    analyzer_version: '1.2.3',
    details: {
      duration_s: 201.4567,
      sample_rate: 44100,
      channels: 2,
      codec: 'mp3',
      format: 'mp3',
      beats: [0.5, 0.97],
      tempo_candidates: [{ bpm: 128.4, score: 0.5 }],
      key_candidates: [{ key: 'F# minor', score: 0.7 }],
      key_camelot: '11A',
      key_open_key: '4m',
      tuning_cents: 5.1,
      loudness_curve: [-10, -9.5],
      warnings: [],
    },
    ...overrides,
  };
}

test('all 24 keys: pitch class 0-11 from C, mode 1 major / 0 minor, names kept under trackscan', () => {
  for (let tonic = 0; tonic < 12; tonic++) {
    for (const minor of [false, true]) {
      const name = keyName(tonic, minor);
      assert.deepEqual(parseKeyName(name), { pitchClass: tonic, minor });
      const a = analysis({ key: name });
      delete a.details;
      const s = toSpotify(a);
      assert.equal(s.key, tonic, name);
      assert.equal(s.mode, minor ? 0 : 1, name);
      assert.equal(s.key_confidence, 0.62);
      assert.equal(s.mode_confidence, 0.62);
      assert.equal(s.trackscan.key_name, name);
      // Without details, Camelot and Open Key come from the key itself.
      assert.equal(s.trackscan.key_camelot, camelot(tonic, minor));
      assert.equal(s.trackscan.key_open_key, openKey(tonic, minor));
    }
  }
});

test('field by field against the native object', () => {
  const a = analysis();
  const s = toSpotify(a);
  assert.deepEqual(s, {
    type: 'audio_features',
    tempo: 128.4,
    tempo_confidence: 0.81,
    key: 6,
    key_confidence: 0.62,
    mode: 0,
    mode_confidence: 0.62,
    loudness: -9.87,
    duration_ms: 201457,
    time_signature: null,
    trackscan: {
      key_name: 'F# minor',
      key_camelot: '11A',
      key_open_key: '4m',
      hz: 441.3,
      hz_confidence: 0.9,
      tuning_cents: 5.1,
      loudness_detail: a.loudness_detail,
      analysis_time: 1.234,
      cached: false,
      analyzer_version: '1.2.3',
    },
  });
  // A copy, not the same object: the projection never aliases the input.
  assert.notEqual(s.trackscan.loudness_detail, a.loudness_detail);
});

test('no key: key -1 and mode -1 (never 0, which would read as minor), confidences null', () => {
  const s = toSpotify(analysis({ key: null, key_confidence: null }));
  assert.equal(s.key, -1);
  assert.equal(s.mode, -1);
  assert.equal(s.key_confidence, null);
  assert.equal(s.mode_confidence, null);
  assert.equal(s.trackscan.key_name, null);
  assert.equal(s.trackscan.key_camelot, null);
  assert.equal(s.trackscan.key_open_key, null);
});

test('no tempo, silence, no details: null, never a made-up number', () => {
  const a = analysis({ bpm: null, bpm_confidence: null, lufs: null, hz: null, hz_confidence: null });
  delete a.details;
  const s = toSpotify(a);
  assert.equal(s.tempo, null);
  assert.equal(s.tempo_confidence, null);
  assert.equal(s.loudness, null);
  assert.equal(s.duration_ms, null);
  assert.equal(s.trackscan.tuning_cents, null);
  assert.equal(s.trackscan.hz, null);
  assert.equal(s.time_signature, null);
});

test('an unknown key spelling is no key rather than a wrong pitch class', () => {
  assert.equal(parseKeyName('Db major'), null);
  assert.equal(parseKeyName('A Minor'), null);
  assert.equal(toSpotify(analysis({ key: 'H minor' })).key, -1);
});

test('duration_ms rounds to the nearest millisecond', () => {
  const a = analysis();
  a.details!.duration_s = 0.0004;
  assert.equal(toSpotify(a).duration_ms, 0);
  a.details!.duration_s = 3.0006;
  assert.equal(toSpotify(a).duration_ms, 3001);
});
