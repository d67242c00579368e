/** The analysis object of SPEC.md, exactly as the API and the CLI return it. */

export interface LoudnessDetail {
  integrated_lufs: number | null;
  loudness_range: number | null;
  true_peak_dbtp: number | null;
  sample_peak_dbfs: number | null;
}

export interface AnalysisDetails {
  duration_s: number;
  sample_rate: number;
  channels: number;
  codec: string | null;
  format: string;
  beats: number[];
  tempo_candidates: { bpm: number; score: number }[];
  key_candidates: { key: string; score: number }[];
  key_camelot: string | null;
  key_open_key: string | null;
  tuning_cents: number | null;
  loudness_curve: (number | null)[];
  warnings: string[];
}

export interface AnalysisObject {
  bpm: number | null;
  bpm_confidence: number | null;
  key: string | null;
  key_confidence: number | null;
  hz: number | null;
  hz_confidence: number | null;
  lufs: number | null;
  loudness_detail: LoudnessDetail;
  analysis_time: number;
  cached: boolean;
  analyzer_version: string;
  details?: AnalysisDetails;
}

/** What to compute. SPEC.md: every detect_* defaults to true, details to false. */
export interface AnalysisSwitches {
  detectBpm: boolean;
  detectKey: boolean;
  detectHz: boolean;
  details: boolean;
}
