/**
 * The generated music is what the estimator tests and the accuracy harness
 * judge against, so its truth labels are checked here: determinism, the
 * spectral peak of tones at known tunings, the heard-key convention, beat
 * positions of click tracks and the coverage of a corpus.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';

import { corpusSpecs } from '../fixtures/generate-corpus.js';
import { addNote, centsFrom440, heardKey, midiToHz, randomSpec, renderPiece, Rng, TIMBRES, truthOf } from '../fixtures/music.js';
import { encodeWav } from '../fixtures/wav.js';

const digest = (x: Float32Array): string => createHash('sha256').update(Buffer.from(x.buffer, x.byteOffset, x.byteLength)).digest('hex');

/** Magnitude of the Hann-windowed DTFT of `x` at `hz` (a single-bin Goertzel-style sum). */
function magnitudeAt(x: Float32Array, sampleRate: number, hz: number): number {
  const w = (2 * Math.PI * hz) / sampleRate;
  let re = 0;
  let im = 0;
  const n = x.length;
  for (let i = 0; i < n; i++) {
    const v = x[i]! * (0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (n - 1)));
    re += v * Math.cos(w * i);
    im -= v * Math.sin(w * i);
  }
  return Math.hypot(re, im);
}

/** The frequency of the largest DTFT magnitude in [lo, hi], on a `step` Hz grid. */
function peakHz(x: Float32Array, sampleRate: number, lo: number, hi: number, step: number): number {
  let best = lo;
  let bestMag = -1;
  for (let f = lo; f <= hi; f += step) {
    const m = magnitudeAt(x, sampleRate, f);
    if (m > bestMag) {
      bestMag = m;
      best = f;
    }
  }
  return best;
}

function mono(samples: Float32Array, channels: number): Float32Array {
  const out = new Float32Array(samples.length / channels);
  for (let i = 0; i < out.length; i++) {
    let s = 0;
    for (let c = 0; c < channels; c++) s += samples[i * channels + c]!;
    out[i] = s / channels;
  }
  return out;
}

test('the PRNG and every kind of piece are deterministic from the seed', () => {
  const a = new Rng(42);
  const b = new Rng(42);
  for (let i = 0; i < 100; i++) assert.equal(a.next(), b.next());
  for (const kind of ['click', 'drums', 'band', 'tone', 'chords', 'arpeggio'] as const) {
    const spec = randomSpec(kind, 7, { durationSeconds: 3, sampleRate: 22050 });
    const first = renderPiece(spec);
    const again = renderPiece({ ...spec });
    assert.equal(digest(first.samples), digest(again.samples), kind);
    assert.notEqual(digest(renderPiece({ ...spec, seed: 8 }).samples), digest(first.samples), `${kind}: another seed`);
    assert.equal(first.samples.length, Math.round(3 * 22050) * spec.channels);
    assert.ok(first.samples.every((v) => Number.isFinite(v) && Math.abs(v) <= 0.9), `${kind}: finite, below -1 dBFS`);
  }
});

test('a tone at a known tuning has its spectral peak where the label says', () => {
  const sampleRate = 44100;
  for (const a4 of [415.3, 432, 440, 446, 466.16]) {
    const x = new Float32Array(sampleRate); // 1 s: the Hann main lobe is +-2 Hz wide, the peak is found to 0.05 Hz
    addNote(x, sampleRate, 0, 1, midiToHz(69, a4), 0.5, TIMBRES.organ);
    const found = peakHz(x, sampleRate, a4 - 3, a4 + 3, 0.05);
    assert.ok(Math.abs(found - a4) <= 0.1, `A4 = ${a4}: peak at ${found.toFixed(2)} Hz`);
    // The harmonics are exact multiples (no inharmonicity that would bias a tuning estimate).
    const second = peakHz(x, sampleRate, 2 * a4 - 3, 2 * a4 + 3, 0.05);
    assert.ok(Math.abs(second - 2 * a4) <= 0.15, `A4 = ${a4}: 2nd harmonic at ${second.toFixed(2)} Hz`);
  }
});

test('a rendered tone piece sits on the A4 grid of its label', () => {
  const spec = randomSpec('tone', 3, { a4Hz: 427.5, durationSeconds: 2, sampleRate: 22050, channels: 1 });
  const piece = renderPiece(spec);
  assert.equal(piece.truth.hz, 427.5);
  const x = mono(piece.samples, piece.channels).subarray(2205, 2205 + 22050);
  // Its note is one of 57..76 (A3..E5): the peak, in cents against the label's A4, is a whole number of semitones.
  let best = { f: 0, m: -1 };
  for (let midi = 57; midi <= 76; midi++) {
    const f = midiToHz(midi, 427.5);
    const m = magnitudeAt(x, 22050, f);
    if (m > best.m) best = { f, m };
  }
  const fine = peakHz(x, 22050, best.f - 2, best.f + 2, 0.05);
  const cents = 1200 * Math.log2(fine / 427.5);
  assert.ok(Math.abs(cents - Math.round(cents / 100) * 100) < 1, `peak ${fine.toFixed(2)} Hz is ${cents.toFixed(2)} cents from A4`);
});

test('the key label is the key heard against A4 = 440', () => {
  assert.equal(heardKey(0, false, 440), 'C major');
  assert.equal(heardKey(0, false, 415.3), 'B major'); // a semitone flat
  assert.equal(heardKey(9, true, 466.16), 'Bb minor'); // a semitone sharp
  assert.equal(heardKey(3, true, 432), 'Eb minor'); // -32 cents: still Eb
  assert.ok(Math.abs(centsFrom440(415.3) + 100) < 0.1);
  assert.deepEqual(truthOf(randomSpec('drums', 1, { bpm: 120 })), { bpm: 120, key: null, hz: null });
  assert.deepEqual(truthOf(randomSpec('tone', 1, { a4Hz: 432 })), { bpm: null, key: null, hz: 432 });
});

test('a click track clicks on the beat', () => {
  const bpm = 97.3;
  const piece = renderPiece(randomSpec('click', 5, { bpm, durationSeconds: 6, sampleRate: 22050, channels: 1 }));
  const x = piece.samples;
  const peak = x.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
  const onsets: number[] = [];
  for (let i = 0; i < x.length; i++) {
    if (Math.abs(x[i]!) > 0.2 * peak && (onsets.length === 0 || i / 22050 - onsets[onsets.length - 1]! > 0.2)) onsets.push(i / 22050);
  }
  assert.ok(onsets.length >= 9, `${onsets.length} clicks`);
  onsets.forEach((t, k) => assert.ok(Math.abs(t - (k * 60) / bpm) < 0.002, `click ${k} at ${t.toFixed(4)} s`));
});

test('a corpus spreads tempos over 60-200 BPM and keys over all 24', () => {
  const specs = corpusSpecs(96, 1);
  assert.equal(specs.length, 96);
  const tempos = specs.filter((s) => truthOf(s).bpm !== null).map((s) => s.bpm);
  assert.ok(tempos.every((b) => b >= 60 && b <= 200));
  assert.ok(Math.min(...tempos) < 70 && Math.max(...tempos) > 190);
  const keys = new Set(specs.map((s) => truthOf(s).key).filter((k) => k !== null));
  assert.equal(keys.size, 24);
  const tunings = specs.map((s) => truthOf(s).hz).filter((h): h is number => h !== null);
  assert.ok(tunings.every((h) => h >= 415 && h <= 466.2));
  assert.deepEqual(corpusSpecs(96, 1), specs, 'deterministic');
});

test('WAV files carry the right header and samples', () => {
  const samples = new Float32Array([0, 0.5, -0.5, 1]);
  const f32 = encodeWav(samples, 48000, 2, 'float32');
  assert.equal(f32.toString('latin1', 0, 4), 'RIFF');
  assert.equal(f32.readUInt32LE(4), f32.length - 8);
  assert.equal(f32.toString('latin1', 8, 16), 'WAVEfmt ');
  assert.equal(f32.readUInt16LE(20), 3);
  assert.equal(f32.readUInt16LE(22), 2);
  assert.equal(f32.readUInt32LE(24), 48000);
  assert.equal(f32.readFloatLE(f32.length - 4), 1);
  const pcm = encodeWav(samples, 8000, 1, 'pcm16');
  assert.equal(pcm.readUInt16LE(20), 1);
  assert.equal(pcm.toString('latin1', 36, 40), 'data');
  assert.deepEqual([0, 1, 2, 3].map((i) => pcm.readInt16LE(44 + 2 * i)), [0, 16384, -16384, 32767]);
});
