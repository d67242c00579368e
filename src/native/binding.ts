/**
 * The only module that loads the native addon. node-gyp-build picks a local
 * build (build/Release) or the prebuild for this platform (prebuilds/); set
 * PREBUILDS_ONLY=1 to insist on the prebuild. TRACKSCAN_ADDON=/path/x.node
 * loads a development build instead (cmake-js debug or sanitizer builds).
 */
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { AnalysisError } from '../errors.js';

export interface NativeAnalyzerOptions {
  sampleRate: number;
  channels: number;
  channelMask?: number;
  detectTempo?: boolean;
  detectKey?: boolean;
  detectTuning?: boolean;
}

export interface NativeLoudness {
  integratedLufs: number | null;
  loudnessRangeLu: number | null;
  truePeakDbtp: number | null;
  samplePeakDbfs: number | null;
  shortTermLufs: (number | null)[];
}

export interface NativeTempo {
  bpm: number;
  confidence: number;
  beatTimesSeconds: number[];
  candidates: { bpm: number; score: number }[];
}

export interface NativeKey {
  tonic: number;
  minor: boolean;
  confidence: number;
  candidates: { tonic: number; minor: boolean; score: number }[];
}

export interface NativeTuning {
  referenceHz: number;
  centsOffset: number;
  confidence: number;
}

export interface NativeResult {
  durationSeconds: number;
  frames: number;
  loudness: NativeLoudness;
  tempo: NativeTempo | null;
  key: NativeKey | null;
  tuning: NativeTuning | null;
  warnings: string[];
}

export interface RawAnalyzer {
  push(frames: Float32Array): Promise<void>;
  finish(): Promise<NativeResult>;
  close(): void;
}

interface RawBinding {
  Analyzer: new (options: NativeAnalyzerOptions) => RawAnalyzer;
  version(): string;
  init(errorClass: typeof AnalysisError): void;
}

const require = createRequire(import.meta.url);
/** Package root: this file is dist/src/native/binding.js once compiled. */
export const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

function load(): RawBinding {
  const override = process.env.TRACKSCAN_ADDON;
  const binding = (override ? require(resolve(override)) : require('node-gyp-build')(packageRoot)) as RawBinding;
  binding.init(AnalysisError);
  return binding;
}

export const binding: RawBinding = load();
