/**
 * The Spotify-compatible projection (`format=spotify`): the analysis object
 * in the field names and value conventions of Spotify's former
 * audio-features object (and the confidences of its audio-analysis `track`
 * section), where trackscan measures an equivalent. Pure: no I/O.
 * The field-by-field table with the native names is src/analysis/spotify.md.
 */
import { camelot, openKey, TONICS } from './key-names.js';
import type { AnalysisObject, LoudnessDetail } from './types.js';

/** What trackscan measures that Spotify's object has no field for. */
export interface TrackscanExtras {
  /** The native key name, e.g. "A minor". */
  key_name: string | null;
  key_camelot: string | null;
  key_open_key: string | null;
  hz: number | null;
  hz_confidence: number | null;
  tuning_cents: number | null;
  loudness_detail: LoudnessDetail;
  analysis_time: number;
  cached: boolean;
  analyzer_version: string;
}

export interface SpotifyAudioFeatures {
  type: 'audio_features';
  /** BPM; null when not asked (detect_bpm=false) or no steady pulse. */
  tempo: number | null;
  tempo_confidence: number | null;
  /** Pitch class of the tonic, 0 = C ... 11 = B; -1 when no key (Spotify's convention). */
  key: number;
  key_confidence: number | null;
  /** 1 major, 0 minor; -1 when there is no key (so it never reads as minor). */
  mode: number;
  /** The key's confidence: the chance that tonic and mode are both right, a lower bound for the mode alone. */
  mode_confidence: number | null;
  /** Integrated loudness in LUFS (EBU R128); Spotify's dB figure is the closest equivalent. */
  loudness: number | null;
  /** Whole milliseconds; null when the duration is unknown (the analysis ran without details). */
  duration_ms: number | null;
  /** Not estimated by trackscan: always null. */
  time_signature: null;
  trackscan: TrackscanExtras;
}

const KEY_NAME = /^(C|C#|D|Eb|E|F|F#|G|Ab|A|Bb|B) (major|minor)$/;

/** "A minor" -> {pitchClass: 9, minor: true}; null for null or an unknown spelling. */
export function parseKeyName(name: string | null): { pitchClass: number; minor: boolean } | null {
  if (name === null) return null;
  const match = KEY_NAME.exec(name);
  if (!match) return null;
  return { pitchClass: (TONICS as readonly string[]).indexOf(match[1]!), minor: match[2] === 'minor' };
}

/** Projects a native analysis object onto Spotify's audio-features conventions. */
export function toSpotify(analysis: AnalysisObject): SpotifyAudioFeatures {
  const key = parseKeyName(analysis.key);
  const details = analysis.details;
  return {
    type: 'audio_features',
    tempo: analysis.bpm,
    tempo_confidence: analysis.bpm === null ? null : analysis.bpm_confidence,
    key: key ? key.pitchClass : -1,
    key_confidence: key ? analysis.key_confidence : null,
    mode: key ? (key.minor ? 0 : 1) : -1,
    mode_confidence: key ? analysis.key_confidence : null,
    loudness: analysis.lufs,
    duration_ms: details ? Math.round(details.duration_s * 1000) : null,
    time_signature: null,
    trackscan: {
      key_name: key ? analysis.key : null,
      key_camelot: key ? (details?.key_camelot ?? camelot(key.pitchClass, key.minor)) : null,
      key_open_key: key ? (details?.key_open_key ?? openKey(key.pitchClass, key.minor)) : null,
      hz: analysis.hz,
      hz_confidence: analysis.hz_confidence,
      tuning_cents: details?.tuning_cents ?? null,
      loudness_detail: { ...analysis.loudness_detail },
      analysis_time: analysis.analysis_time,
      cached: analysis.cached,
      analyzer_version: analysis.analyzer_version,
    },
  };
}

/** The answer formats of the analyze endpoints. */
export const RESPONSE_FORMATS = ['native', 'spotify'] as const;
export type ResponseFormat = (typeof RESPONSE_FORMATS)[number];
