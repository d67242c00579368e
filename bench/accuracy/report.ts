/**
 * Turns the harness's predictions into the side-by-side tables: one table a
 * group and one for everything, a row per engine configuration. Pure: no I/O.
 */
import {
  confidenceInformativeness, keyExact, median, mirexKeyScore, parseKey, quantile, tempoAcc1, tempoAcc2, tuningErrorCents,
  type Judged,
} from './metrics.js';

/** One recording's labels and every engine's answers, as written to --out. */
export interface Prediction {
  path: string;
  group: string;
  genre: string | null;
  durationSeconds: number;
  /** As decoded (absent in runs before 09:45 UTC). */
  sampleRate?: number;
  channels?: number;
  label: { bpm: number | null; key: string | null; hz: number | null };
  /** ffmpeg's ebur128 filter on the file (LUFS), or null if skipped/failed. */
  referenceLufs: number | null;
  /** SHA-256 of the file's bytes (so --essentia-from reuses answers only for the same file). */
  fileSha256?: string;
  error?: string;
  trackscan?: {
    bpm: number | null;
    bpmConfidence: number | null;
    key: string | null;
    keyConfidence: number | null;
    hz: number | null;
    hzConfidence: number | null;
    integratedLufs: number | null;
    cpuSeconds: number;
    wallSeconds: number;
    /** The same run with tempo, key and tuning off: what loudness alone costs. */
    loudnessOnlyCpuSeconds: number;
    warnings: string[];
  };
  essentia?: {
    /** ffmpeg resampling to 44.1 kHz (after a JS downmix): not counted in Essentia's time. */
    prepareSeconds: number;
    degara: { bpm: number; cpuSeconds: number };
    multifeature: { bpm: number; confidence: number; cpuSeconds: number } | null;
    keys: Record<string, { key: string; strength: number; cpuSeconds: number }>;
    tuning: { hz: number; cpuSeconds: number };
  };
}

interface Answer<T> {
  value: T | null;
  confidence: number | null;
}

/** A row of the table: which answers of a prediction it judges. Absent accessors print as "—". */
export interface Row {
  name: string;
  tempo?: (p: Prediction) => Answer<number>;
  key?: (p: Prediction) => Answer<string>;
  tuning?: (p: Prediction) => number | null;
  loudness?: (p: Prediction) => number | null;
  cpuSeconds?: (p: Prediction) => number | null;
  /** Per-recording speed ratio against trackscan's full analysis (Essentia / trackscan). */
  ratio?: (p: Prediction) => number | null;
  /** The same against trackscan's tempo+key+tuning alone (full run minus the loudness-only run). */
  ratioEstimators?: (p: Prediction) => number | null;
}

const none = { value: null, confidence: null };

export function defaultRows(withEssentia: boolean, withMultifeature: boolean): Row[] {
  const rows: Row[] = [
    {
      name: 'trackscan',
      tempo: (p) => (p.trackscan ? { value: p.trackscan.bpm, confidence: p.trackscan.bpmConfidence } : none),
      key: (p) => (p.trackscan ? { value: p.trackscan.key, confidence: p.trackscan.keyConfidence } : none),
      tuning: (p) => p.trackscan?.hz ?? null,
      loudness: (p) => p.trackscan?.integratedLufs ?? null,
      cpuSeconds: (p) => p.trackscan?.cpuSeconds ?? null,
    },
    {
      name: 'trackscan tempo+key+tuning only (full − loudness-only run)',
      cpuSeconds: (p) => (p.trackscan ? Math.max(0, p.trackscan.cpuSeconds - p.trackscan.loudnessOnlyCpuSeconds) : null),
    },
  ];
  if (!withEssentia) return rows;
  rows.push({
    name: 'Essentia RhythmExtractor2013 degara',
    tempo: (p) => (p.essentia ? { value: p.essentia.degara.bpm, confidence: 0 } : none),
    cpuSeconds: (p) => p.essentia?.degara.cpuSeconds ?? null,
  });
  if (withMultifeature) {
    rows.push({
      name: 'Essentia RhythmExtractor2013 multifeature',
      tempo: (p) => (p.essentia?.multifeature ? { value: p.essentia.multifeature.bpm, confidence: p.essentia.multifeature.confidence } : none),
      cpuSeconds: (p) => p.essentia?.multifeature?.cpuSeconds ?? null,
    });
  }
  for (const profile of ['bgate', 'edma', 'krumhansl']) {
    rows.push({
      name: `Essentia KeyExtractor ${profile}`,
      key: (p) => {
        const k = p.essentia?.keys[profile];
        return k ? { value: k.key, confidence: k.strength } : none;
      },
      cpuSeconds: (p) => p.essentia?.keys[profile]?.cpuSeconds ?? null,
    });
  }
  rows.push({
    name: 'Essentia TuningFrequency',
    tuning: (p) => p.essentia?.tuning.hz ?? null,
    cpuSeconds: (p) => p.essentia?.tuning.cpuSeconds ?? null,
  });
  const total = (p: Prediction): number | null =>
    p.essentia ? p.essentia.degara.cpuSeconds + p.essentia.keys.bgate!.cpuSeconds + p.essentia.tuning.cpuSeconds : null;
  rows.push({
    name: 'Essentia degara + KeyExtractor bgate + TuningFrequency',
    cpuSeconds: total,
    ratio: (p) => {
      const e = total(p);
      const t = p.trackscan?.cpuSeconds;
      return e !== null && t ? e / t : null;
    },
    ratioEstimators: (p) => {
      const e = total(p);
      const t = p.trackscan ? p.trackscan.cpuSeconds - p.trackscan.loudnessOnlyCpuSeconds : null;
      return e !== null && t !== null && t > 0 ? e / t : null;
    },
  });
  return rows;
}

/** A missing tuning estimate counts as the worst wrapped error, 50 cents. */
export const MISSING_TUNING_CENTS = 50;

export interface RowFigures {
  name: string;
  tempoAcc1: number | null;
  tempoAcc2: number | null;
  tempoConfidencePoints: number | null;
  keyExact: number | null;
  keyMirex: number | null;
  keyConfidencePoints: number | null;
  tuningMedianCents: number | null;
  tuningP90Cents: number | null;
  tuningMissing: number;
  loudnessMedianLu: number | null;
  loudnessMaxLu: number | null;
  loudnessMissing: number;
  secondsPerMinute: number | null;
  ratio: number | null;
  ratioEstimators: number | null;
}

const pct = (xs: number[]): number | null => (xs.length ? (100 * xs.reduce((a, b) => a + b, 0)) / xs.length : null);

export function figures(row: Row, predictions: readonly Prediction[]): RowFigures {
  const f: RowFigures = {
    name: row.name, tempoAcc1: null, tempoAcc2: null, tempoConfidencePoints: null, keyExact: null, keyMirex: null,
    keyConfidencePoints: null, tuningMedianCents: null, tuningP90Cents: null, tuningMissing: 0, loudnessMedianLu: null,
    loudnessMaxLu: null, loudnessMissing: 0, secondsPerMinute: null, ratio: null, ratioEstimators: null,
  };
  if (row.tempo) {
    const judged = predictions.filter((p) => p.label.bpm !== null).map((p) => ({ label: p.label.bpm!, answer: row.tempo!(p) }));
    const acc1 = judged.map((j) => (tempoAcc1(j.answer.value, j.label) ? 1 : 0));
    f.tempoAcc1 = pct(acc1);
    f.tempoAcc2 = pct(judged.map((j) => (tempoAcc2(j.answer.value, j.label) ? 1 : 0)));
    f.tempoConfidencePoints = confidenceInformativeness(
      judged.map((j, i): Judged => ({ confidence: j.answer.value === null ? null : j.answer.confidence, score: acc1[i]! })),
    );
  }
  if (row.key) {
    const judged = predictions
      .map((p) => ({ label: parseKey(p.label.key), answer: row.key!(p) }))
      .filter((j) => j.label !== null)
      .map((j) => ({ ...j, estimate: parseKey(j.answer.value) }));
    const exact = judged.map((j) => (keyExact(j.estimate, j.label!) ? 1 : 0));
    f.keyExact = pct(exact);
    f.keyMirex = pct(judged.map((j) => mirexKeyScore(j.estimate, j.label!)));
    f.keyConfidencePoints = confidenceInformativeness(
      judged.map((j, i): Judged => ({ confidence: j.estimate === null ? null : j.answer.confidence, score: exact[i]! })),
    );
  }
  if (row.tuning) {
    const errors: number[] = [];
    for (const p of predictions) {
      if (p.label.hz === null) continue;
      const hz = row.tuning(p);
      if (hz === null || !Number.isFinite(hz) || hz <= 0) {
        f.tuningMissing++;
        errors.push(MISSING_TUNING_CENTS);
      } else errors.push(Math.abs(tuningErrorCents(hz, p.label.hz)));
    }
    if (errors.length) {
      f.tuningMedianCents = median(errors);
      f.tuningP90Cents = quantile(errors, 0.9);
    }
  }
  if (row.loudness) {
    const errors: number[] = [];
    for (const p of predictions) {
      if (p.referenceLufs === null || !Number.isFinite(p.referenceLufs)) continue;
      const lufs = row.loudness(p);
      if (lufs === null || !Number.isFinite(lufs)) f.loudnessMissing++;
      else errors.push(Math.abs(lufs - p.referenceLufs));
    }
    if (errors.length) {
      f.loudnessMedianLu = median(errors);
      f.loudnessMaxLu = Math.max(...errors);
    }
  }
  if (row.cpuSeconds) {
    const perMinute = predictions
      .map((p) => ({ s: row.cpuSeconds!(p), minutes: p.durationSeconds / 60 }))
      .filter((x): x is { s: number; minutes: number } => x.s !== null && x.minutes > 0)
      .map((x) => x.s / x.minutes);
    if (perMinute.length) f.secondsPerMinute = median(perMinute);
  }
  if (row.ratio) {
    const ratios = predictions.map((p) => row.ratio!(p)).filter((r): r is number => r !== null && Number.isFinite(r));
    if (ratios.length) f.ratio = median(ratios);
  }
  if (row.ratioEstimators) {
    const ratios = predictions.map((p) => row.ratioEstimators!(p)).filter((r): r is number => r !== null && Number.isFinite(r));
    if (ratios.length) f.ratioEstimators = median(ratios);
  }
  return f;
}

const fmt = (x: number | null, digits = 1): string => (x === null || Number.isNaN(x) ? '—' : x.toFixed(digits));
const signed = (x: number | null): string => (x === null ? '—' : `${x >= 0 ? '+' : ''}${x.toFixed(1)}`);

/** The markdown table of one set of recordings. */
export function table(title: string, rows: readonly Row[], predictions: readonly Prediction[]): string {
  const nTempo = predictions.filter((p) => p.label.bpm !== null).length;
  const nKey = predictions.filter((p) => parseKey(p.label.key) !== null).length;
  const nHz = predictions.filter((p) => p.label.hz !== null).length;
  const nLufs = predictions.filter((p) => p.referenceLufs !== null).length;
  const minutes = predictions.reduce((s, p) => s + p.durationSeconds, 0) / 60;
  const failed = predictions.filter((p) => p.error).length;
  const lines = [
    `### ${title}: ${predictions.length} recordings, ${minutes.toFixed(1)} min (labels: tempo ${nTempo}, key ${nKey}, tuning ${nHz}; loudness references ${nLufs})${failed ? `, ${failed} FAILED` : ''}`,
    '',
    '| engine | tempo Acc1 % | Acc2 % | tempo conf. Δ pts | key exact % | MIREX % | key conf. Δ pts | tuning \\|err\\| median / p90 cents | loudness \\|err\\| median / max LU | CPU s per min (median) | Essentia ÷ trackscan |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const row of rows) {
    const f = figures(row, predictions);
    const tuning = row.tuning && nHz
      ? `${fmt(f.tuningMedianCents, 2)} / ${fmt(f.tuningP90Cents, 2)}${f.tuningMissing ? ` (${f.tuningMissing} none)` : ''}`
      : '—';
    const loudness = row.loudness && nLufs
      ? `${fmt(f.loudnessMedianLu, 2)} / ${fmt(f.loudnessMaxLu, 2)}${f.loudnessMissing ? ` (${f.loudnessMissing} none)` : ''}`
      : '—';
    lines.push(
      `| ${row.name} | ${nTempo ? fmt(f.tempoAcc1) : '—'} | ${nTempo ? fmt(f.tempoAcc2) : '—'} | ${nTempo ? signed(f.tempoConfidencePoints) : '—'} ` +
        `| ${nKey ? fmt(f.keyExact) : '—'} | ${nKey ? fmt(f.keyMirex) : '—'} | ${nKey ? signed(f.keyConfidencePoints) : '—'} ` +
        `| ${tuning} | ${loudness} | ${fmt(f.secondsPerMinute, 3)} | ${f.ratio === null ? '—' : `${f.ratio.toFixed(1)}×`}${f.ratioEstimators === null ? '' : ` (${f.ratioEstimators.toFixed(1)}× vs tempo+key+tuning only)`} |`,
    );
  }
  return lines.join('\n');
}

/** Tempo Acc1 / Acc2 of every tempo row by genre: where the metrical level goes wrong. */
export function tempoByGenre(rows: readonly Row[], predictions: readonly Prediction[]): string {
  const tempoRows = rows.filter((r) => r.tempo);
  const labelled = predictions.filter((p) => p.label.bpm !== null);
  const genres = [...new Set(labelled.map((p) => `${p.group}/${p.genre ?? '?'}`))].sort();
  const lines = [
    '### tempo Acc1 / Acc2 % by genre',
    '',
    `| group/genre | n | BPM range | ${tempoRows.map((r) => r.name).join(' | ')} |`,
    `|---|---|---|${tempoRows.map(() => '---|').join('')}`,
  ];
  for (const g of genres) {
    const ps = labelled.filter((p) => `${p.group}/${p.genre ?? '?'}` === g);
    const bpms = ps.map((p) => p.label.bpm!);
    const cells = tempoRows.map((r) => {
      const f = figures(r, ps);
      return `${fmt(f.tempoAcc1, 0)} / ${fmt(f.tempoAcc2, 0)}`;
    });
    lines.push(`| ${g} | ${ps.length} | ${Math.min(...bpms).toFixed(0)}-${Math.max(...bpms).toFixed(0)} | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

/** CPU seconds per minute by decoded format (the speed target is stated for 44.1 kHz stereo). */
export function speedByFormat(rows: readonly Row[], predictions: readonly Prediction[]): string {
  const timed = rows.filter((r) => r.cpuSeconds);
  const known = predictions.filter((p) => p.sampleRate && p.channels);
  const formats = [...new Set(known.map((p) => `${p.sampleRate} Hz × ${p.channels}`))].sort();
  const lines = [
    '### CPU s per minute of audio (median) by decoded format',
    '',
    `| format | n | ${timed.map((r) => r.name).join(' | ')} |`,
    `|---|---|${timed.map(() => '---|').join('')}`,
  ];
  for (const f of formats) {
    const ps = known.filter((p) => `${p.sampleRate} Hz × ${p.channels}` === f);
    lines.push(`| ${f} | ${ps.length} | ${timed.map((r) => fmt(figures(r, ps).secondsPerMinute, 3)).join(' | ')} |`);
  }
  return formats.length ? lines.join('\n') : '(no sample rates recorded in this run: no speed by format)';
}

/**
 * How right the answers are in each band of their own confidence: what a
 * user can read off a confidence. Only for rows whose confidence is 0..1 by
 * contract (trackscan's); Essentia's strengths have scales of their own.
 */
export const CONFIDENCE_BANDS = [0, 0.1, 0.3, 0.5] as const;

export function confidenceBands(row: Row, predictions: readonly Prediction[]): string {
  const band = (c: number | null): number => {
    const x = c === null || !Number.isFinite(c) ? 0 : c;
    let i = 0;
    while (i + 1 < CONFIDENCE_BANDS.length && x >= CONFIDENCE_BANDS[i + 1]!) i++;
    return i;
  };
  const tempo = CONFIDENCE_BANDS.map(() => ({ right: 0, n: 0 }));
  const key = CONFIDENCE_BANDS.map(() => ({ right: 0, n: 0 }));
  for (const p of predictions) {
    if (row.tempo && p.label.bpm !== null) {
      const a = row.tempo(p);
      const b = tempo[band(a.value === null ? null : a.confidence)]!;
      b.n++;
      if (tempoAcc1(a.value, p.label.bpm)) b.right++;
    }
    const label = parseKey(p.label.key);
    if (row.key && label !== null) {
      const a = row.key(p);
      const estimate = parseKey(a.value);
      const b = key[band(estimate === null ? null : a.confidence)]!;
      b.n++;
      if (keyExact(estimate, label)) b.right++;
    }
  }
  const cell = (x: { right: number; n: number }): string => (x.n ? `${((100 * x.right) / x.n).toFixed(0)} % of ${x.n}` : '—');
  const lines = [
    `### ${row.name}: right answers by confidence (tempo Acc1, key exact; no answer counts as confidence 0)`,
    '',
    '| confidence | tempo | key |',
    '|---|---|---|',
  ];
  CONFIDENCE_BANDS.forEach((lo, i) => {
    const hi = CONFIDENCE_BANDS[i + 1];
    lines.push(`| ${hi === undefined ? `≥ ${lo}` : `${lo} – ${hi}`} | ${cell(tempo[i]!)} | ${cell(key[i]!)} |`);
  });
  return lines.join('\n');
}

/** Tables for every group (in order of first appearance), for all recordings, and tempo by genre. */
export function report(rows: readonly Row[], predictions: readonly Prediction[]): string {
  const groups = [...new Set(predictions.map((p) => p.group))];
  const parts = groups.map((g) => table(g, rows, predictions.filter((p) => p.group === g)));
  if (groups.length > 1) parts.push(table('all', rows, predictions));
  if (predictions.some((p) => p.label.bpm !== null)) parts.push(tempoByGenre(rows, predictions));
  if (rows[0]) parts.push(confidenceBands(rows[0], predictions));
  parts.push(speedByFormat(rows, predictions));
  return parts.join('\n\n');
}
