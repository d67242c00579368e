/**
 * Essentia, through the essentia.js npm package (WASM build of Essentia
 * 2.1-beta6-dev; a bench-only dependency in bench/package.json, AGPL-3.0,
 * never shipped with the service). Input: mono float PCM at 44.1 kHz.
 *
 * - Tempo: RhythmExtractor2013 with method "degara" (its confidence is
 *   always 0) and "multifeature" (confidence 0..5.32), minTempo 40,
 *   maxTempo 208 (the defaults).
 * - Key: KeyExtractor with its defaults (4096/4096 frames, HPCP 12, cosine
 *   weights, 25-3500 Hz, tuning 440, average detuning correction on) and the
 *   profiles bgate, edma and krumhansl; confidence = its "strength".
 * - Tuning: what Essentia's TuningFrequencyExtractor does, step by step:
 *   4096-sample frames every 2048, Windowing blackmanharris62, Spectrum,
 *   SpectralPeaks (by frequency, threshold 1e-5, 40-5000 Hz, up to 10000
 *   peaks), TuningFrequency (resolution 1 cent) per frame. essentia.js makes
 *   a fresh algorithm for each call, so TuningFrequency's cross-frame state
 *   is rebuilt here exactly as tuningfrequency.cpp keeps it: each frame
 *   votes for its own deviation with the energy of its peaks, the answer is
 *   the most voted deviation (wrapped to -35..65 cents like Essentia's).
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** The slice of the essentia.js API used here (its own typings are not importable from Node ESM). */
interface EssentiaVector {
  size(): number;
  get(i: number): number;
  delete(): void;
}
interface EssentiaVectorVector {
  size(): number;
  get(i: number): EssentiaVector;
  delete(): void;
}
interface EssentiaCore {
  version: string;
  arrayToVector(array: Float32Array): EssentiaVector;
  vectorToArray(vector: EssentiaVector): Float32Array;
  FrameGenerator(audio: Float32Array, frameSize: number, hopSize: number): EssentiaVectorVector;
  RhythmExtractor2013(signal: EssentiaVector, maxTempo: number, method: string, minTempo: number): {
    bpm: number; confidence: number; ticks: EssentiaVector; estimates: EssentiaVector; bpmIntervals: EssentiaVector;
  };
  KeyExtractor(
    audio: EssentiaVector, averageDetuningCorrection: boolean, frameSize: number, hopSize: number, hpcpSize: number,
    maxFrequency: number, maximumSpectralPeaks: number, minFrequency: number, pcpThreshold: number, profileType: string,
    sampleRate: number, spectralPeaksThreshold: number, tuningFrequency: number, weightType: string, windowType: string,
  ): { key: string; scale: string; strength: number };
  Windowing(frame: EssentiaVector, normalized: boolean, size: number, type: string, zeroPadding: number, zeroPhase: boolean): { frame: EssentiaVector };
  Spectrum(frame: EssentiaVector, size: number): { spectrum: EssentiaVector };
  SpectralPeaks(spectrum: EssentiaVector, magnitudeThreshold: number, maxFrequency: number, maxPeaks: number, minFrequency: number, orderBy: string, sampleRate: number): {
    frequencies: EssentiaVector; magnitudes: EssentiaVector;
  };
  TuningFrequency(frequencies: EssentiaVector, magnitudes: EssentiaVector, resolution: number): { tuningFrequency: number; tuningCents: number };
}

export const ESSENTIA_RATE = 44100;
export const KEY_PROFILES = ['bgate', 'edma', 'krumhansl'] as const;
export type KeyProfile = (typeof KEY_PROFILES)[number];

let core: EssentiaCore | null = null;

/** Loads essentia.js from bench/node_modules (once). */
export function loadEssentia(repoRoot: string): EssentiaCore {
  if (!core) {
    const require = createRequire(join(repoRoot, 'bench', 'package.json'));
    let mod: { Essentia: new (wasm: unknown) => EssentiaCore; EssentiaWASM: unknown };
    try {
      mod = require('essentia.js') as typeof mod;
    } catch (err) {
      throw new Error(`essentia.js is not installed: run \`(cd bench && npm ci)\`, or pass --no-essentia (${(err as Error).message.split('\n')[0]})`);
    }
    core = new mod.Essentia(mod.EssentiaWASM);
  }
  return core;
}

/** CPU seconds (user + system, whole process) and wall seconds of fn. */
export function timed<T>(fn: () => T): { value: T; cpuSeconds: number; wallSeconds: number } {
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  const value = fn();
  const cpu = process.cpuUsage(cpu0);
  return { value, cpuSeconds: (cpu.user + cpu.system) / 1e6, wallSeconds: (performance.now() - wall0) / 1000 };
}

export interface EssentiaTempo {
  bpm: number;
  confidence: number;
  cpuSeconds: number;
}
export interface EssentiaKey {
  key: string;
  strength: number;
  cpuSeconds: number;
}
export interface EssentiaTuning {
  hz: number;
  cents: number;
  cpuSeconds: number;
}

export function rhythm(e: EssentiaCore, signal: EssentiaVector, method: 'degara' | 'multifeature'): EssentiaTempo {
  const { value, cpuSeconds } = timed(() => e.RhythmExtractor2013(signal, 208, method, 40));
  value.ticks.delete();
  value.estimates.delete();
  value.bpmIntervals.delete();
  return { bpm: value.bpm, confidence: value.confidence, cpuSeconds };
}

export function key(e: EssentiaCore, signal: EssentiaVector, profile: KeyProfile): EssentiaKey {
  const { value, cpuSeconds } = timed(() =>
    e.KeyExtractor(signal, true, 4096, 4096, 12, 3500, 60, 25, 0.2, profile, ESSENTIA_RATE, 0.0001, 440, 'cosine', 'hann'),
  );
  return { key: `${value.key} ${value.scale}`, strength: value.strength, cpuSeconds };
}

export function tuning(e: EssentiaCore, mono: Float32Array): EssentiaTuning {
  const { value, cpuSeconds } = timed(() => {
    const votes = new Float64Array(100); // index = deviation + 50 cents, as tuningfrequency.cpp
    const frames = e.FrameGenerator(mono, 4096, 2048);
    for (let i = 0; i < frames.size(); i++) {
      const frame = frames.get(i);
      const windowed = e.Windowing(frame, true, 4096, 'blackmanharris62', 0, true);
      const spectrum = e.Spectrum(windowed.frame, 4096);
      const peaks = e.SpectralPeaks(spectrum.spectrum, 1e-5, 5000, 10000, 40, 'frequency', ESSENTIA_RATE);
      const n = peaks.magnitudes.size();
      if (n > 0) {
        let energy = 0;
        for (let k = 0; k < n; k++) energy += peaks.magnitudes.get(k) ** 2;
        // A fresh TuningFrequency answers this frame's deviation, wrapped to [-35, 65).
        const cents = e.TuningFrequency(peaks.frequencies, peaks.magnitudes, 1).tuningCents;
        const deviation = cents >= 50 ? cents - 100 : cents;
        votes[(Math.round(deviation + 50) + 100) % 100]! += energy;
      }
      peaks.frequencies.delete();
      peaks.magnitudes.delete();
      spectrum.spectrum.delete();
      windowed.frame.delete();
      frame.delete();
    }
    frames.delete();
    let best = 0;
    for (let i = 1; i < 100; i++) if (votes[i]! > votes[best]!) best = i;
    let cents = votes[best] === 0 ? 0 : best - 50;
    if (cents < -35) cents += 100;
    return { hz: 440 * 2 ** (cents / 1200), cents };
  });
  return { ...value, cpuSeconds };
}

export interface EssentiaResult {
  degara: EssentiaTempo;
  multifeature: EssentiaTempo | null;
  keys: Record<KeyProfile, EssentiaKey>;
  tuning: EssentiaTuning;
}

/** Every Essentia configuration on one mono 44.1 kHz signal. */
export function runEssentia(e: EssentiaCore, mono: Float32Array, options: { multifeature: boolean }): EssentiaResult {
  const signal = e.arrayToVector(mono);
  try {
    const degara = rhythm(e, signal, 'degara');
    const multifeature = options.multifeature ? rhythm(e, signal, 'multifeature') : null;
    const keys = Object.fromEntries(KEY_PROFILES.map((p) => [p, key(e, signal, p)])) as Record<KeyProfile, EssentiaKey>;
    return { degara, multifeature, keys, tuning: tuning(e, mono) };
  } finally {
    signal.delete();
  }
}
