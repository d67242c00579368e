/**
 * Accuracy metrics, exactly as ../shared/eval/README.md defines them. Pure
 * functions, no I/O, so test/unit/accuracy-metrics.test.ts can check them.
 *
 * - Tempo Acc1: |estimate - label| <= 4 % of label. Acc2: Acc1 against
 *   label x {1, 2, 1/2, 3, 1/3}.
 * - Key exact: same tonic (enharmonics equal) and mode. MIREX weighted score:
 *   1.0 exact, 0.5 perfect fifth above or below in the same mode, 0.3
 *   relative major/minor, 0.2 parallel major/minor, 0 otherwise.
 * - Tuning: error in cents, 1200*log2(estimate/label). A4 = 415.3 Hz is Ab at
 *   440, so a tuning is only defined modulo a semitone: the error is wrapped
 *   to [-50, +50) cents before it is compared (`wrapCents`).
 * - Loudness: error in LU against a reference measurement.
 * - A missing estimate (null) counts as wrong: Acc 0, key score 0; for tuning
 *   and loudness it is counted apart (`missing`), never as a number.
 */

/** Pitch classes by name; enharmonic spellings map to the same class. */
const PITCH_CLASS: Record<string, number> = {
  'C': 0, 'B#': 0, 'C#': 1, 'Db': 1, 'D': 2, 'D#': 3, 'Eb': 3, 'E': 4, 'Fb': 4, 'E#': 5, 'F': 5,
  'F#': 6, 'Gb': 6, 'G': 7, 'G#': 8, 'Ab': 8, 'A': 9, 'A#': 10, 'Bb': 10, 'B': 11, 'Cb': 11,
};

export interface Key {
  /** Pitch class of the tonic, 0 = C. */
  tonic: number;
  minor: boolean;
}

/** Parses "<Tonic> <major|minor>" (also "C#m"-free forms like "c# MINOR"); null if it is not a key. */
export function parseKey(text: string | null | undefined): Key | null {
  if (!text) return null;
  const match = /^\s*([A-Ga-g])([#b♯♭]?)\s*(major|minor|maj|min)\s*$/i.exec(text);
  if (!match) return null;
  const letter = match[1]!.toUpperCase();
  const accidental = match[2] === '♯' ? '#' : match[2] === '♭' ? 'b' : match[2]!;
  const tonic = PITCH_CLASS[letter + accidental];
  if (tonic === undefined) return null;
  return { tonic, minor: /^min/i.test(match[3]!) };
}

/** Tempo Acc1: within 4 % of the label. */
export function tempoAcc1(estimateBpm: number | null, labelBpm: number): boolean {
  if (estimateBpm === null || !Number.isFinite(estimateBpm)) return false;
  return Math.abs(estimateBpm - labelBpm) <= 0.04 * labelBpm;
}

/** Tempo Acc2: Acc1 against the label times 1, 2, 1/2, 3 or 1/3. */
export function tempoAcc2(estimateBpm: number | null, labelBpm: number): boolean {
  return [1, 2, 1 / 2, 3, 1 / 3].some((factor) => tempoAcc1(estimateBpm, labelBpm * factor));
}

const mod12 = (n: number): number => ((n % 12) + 12) % 12;

export function keyExact(estimate: Key | null, label: Key): boolean {
  return estimate !== null && mod12(estimate.tonic) === mod12(label.tonic) && estimate.minor === label.minor;
}

/** MIREX weighted key score of one estimate (0, 0.2, 0.3, 0.5 or 1). */
export function mirexKeyScore(estimate: Key | null, label: Key): number {
  if (estimate === null) return 0;
  const e = mod12(estimate.tonic);
  const l = mod12(label.tonic);
  if (estimate.minor === label.minor) {
    if (e === l) return 1;
    if (e === mod12(l + 7) || e === mod12(l - 7)) return 0.5;
    return 0;
  }
  // Relative: C major <-> A minor.
  const relative = label.minor ? mod12(l + 3) : mod12(l - 3);
  if (e === relative) return 0.3;
  if (e === l) return 0.2;
  return 0;
}

/** Wraps cents to [-50, +50): the tuning error modulo a semitone. */
export function wrapCents(cents: number): number {
  return cents - 100 * Math.floor((cents + 50) / 100);
}

/** Tuning error in cents, 1200*log2(estimate/label), wrapped to [-50, +50). */
export function tuningErrorCents(estimateHz: number, labelHz: number): number {
  return wrapCents(1200 * Math.log2(estimateHz / labelHz));
}

/**
 * Quantile q (0..1) by linear interpolation between order statistics (the
 * "type 7" definition of R and NumPy's default). NaN for an empty list.
 */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo);
}

export const median = (values: readonly number[]): number => quantile(values, 0.5);

export function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length;
}

export interface Judged {
  /** The engine's confidence; null when it gave no answer (ranked lowest). */
  confidence: number | null;
  /** 1 right, 0 wrong (or a score in 0..1). */
  score: number;
}

/**
 * Confidence informativeness, in points: the mean score of the most
 * confident half minus that of the least confident half. Items are sorted by
 * confidence (no answer lowest); with an odd count the middle item is left
 * out; items of equal confidence that straddle the cut are shared between
 * the halves in proportion, so the order of ties cannot move the figure.
 * null when there are fewer than 2 items or every confidence is the same
 * (e.g. Essentia's degara method, whose confidence is always 0).
 */
export function confidenceInformativeness(items: readonly Judged[]): number | null {
  if (items.length < 2) return null;
  const conf = (j: Judged): number => (j.confidence === null || !Number.isFinite(j.confidence) ? -Infinity : j.confidence);
  const first = conf(items[0]!);
  if (items.every((j) => conf(j) === first)) return null;
  const sorted = [...items].sort((a, b) => conf(b) - conf(a));
  const half = Math.floor(sorted.length / 2);
  // Group equal confidences; give each group's mean score to every member, so
  // the split does not depend on the order within a group.
  const smoothed: number[] = new Array<number>(sorted.length);
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j < sorted.length && conf(sorted[j]!) === conf(sorted[i]!)) j++;
    const groupMean = mean(sorted.slice(i, j).map((x) => x.score));
    for (let k = i; k < j; k++) smoothed[k] = groupMean;
    i = j;
  }
  const top = smoothed.slice(0, half);
  const bottom = smoothed.slice(sorted.length - half);
  return 100 * (mean(top) - mean(bottom));
}
