/** Turns the native result into SPEC.md's analysis object. */
import type { NativeResult } from '../native/analyzer.js';
import type { AnalysisObject, AnalysisSwitches } from './types.js';
import { camelot, keyName, openKey } from './key-names.js';

export interface SourceInfo {
  sampleRate: number;
  channels: number;
  codec: string | null;
  format: string;
}

const round = (value: number | null | undefined, digits: number): number | null =>
  value === null || value === undefined || !Number.isFinite(value) ? null : Number(value.toFixed(digits));

export function presentAnalysis(
  result: NativeResult,
  source: SourceInfo,
  switches: AnalysisSwitches,
  analysisSeconds: number,
  analyzerVersion: string,
): AnalysisObject {
  const tempo = switches.detectBpm ? result.tempo : null;
  const key = switches.detectKey ? result.key : null;
  const tuning = switches.detectHz ? result.tuning : null;
  const l = result.loudness;
  const analysis: AnalysisObject = {
    bpm: round(tempo?.bpm, 1),
    bpm_confidence: round(tempo?.confidence, 3),
    key: key ? keyName(key.tonic, key.minor) : null,
    key_confidence: round(key?.confidence, 3),
    hz: round(tuning?.referenceHz, 1),
    hz_confidence: round(tuning?.confidence, 3),
    lufs: round(l.integratedLufs, 2),
    loudness_detail: {
      integrated_lufs: round(l.integratedLufs, 2),
      loudness_range: round(l.loudnessRangeLu, 2),
      true_peak_dbtp: round(l.truePeakDbtp, 2),
      sample_peak_dbfs: round(l.samplePeakDbfs, 2),
    },
    analysis_time: Number(analysisSeconds.toFixed(3)),
    cached: false,
    analyzer_version: analyzerVersion,
  };
  if (switches.details) {
    analysis.details = {
      duration_s: Number(result.durationSeconds.toFixed(3)),
      sample_rate: source.sampleRate,
      channels: source.channels,
      codec: source.codec,
      format: source.format,
      beats: tempo ? tempo.beatTimesSeconds.map((t) => Number(t.toFixed(3))) : [],
      tempo_candidates: tempo ? tempo.candidates.map((c) => ({ bpm: Number(c.bpm.toFixed(1)), score: Number(c.score.toFixed(3)) })) : [],
      key_candidates: key
        ? key.candidates.slice(0, 3).map((c) => ({ key: keyName(c.tonic, c.minor), score: Number(c.score.toFixed(3)) }))
        : [],
      key_camelot: key ? camelot(key.tonic, key.minor) : null,
      key_open_key: key ? openKey(key.tonic, key.minor) : null,
      tuning_cents: round(tuning?.centsOffset, 1),
      loudness_curve: l.shortTermLufs.map((v) => round(v, 2)),
      warnings: result.warnings,
    };
  }
  return analysis;
}
