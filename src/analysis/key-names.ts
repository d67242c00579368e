/** Key spelling of SPEC.md, and the Camelot and Open Key notations DJs use. */

/** SPEC.md's tonic spelling, indexed by pitch class (0 = C). */
export const TONICS = ['C', 'C#', 'D', 'Eb', 'E', 'F', 'F#', 'G', 'Ab', 'A', 'Bb', 'B'] as const;

export function keyName(tonic: number, minor: boolean): string {
  return `${TONICS[((tonic % 12) + 12) % 12]} ${minor ? 'minor' : 'major'}`;
}

/** Position on the circle of fifths of the major key sharing the key signature (C = 0, G = 1, ...). */
function fifthsOfRelativeMajor(tonic: number, minor: boolean): number {
  const major = minor ? (tonic + 3) % 12 : tonic % 12;
  return (major * 7) % 12;
}

/** Camelot wheel code: C major 8B, A minor 8A, G major 9B, ... */
export function camelot(tonic: number, minor: boolean): string {
  return `${((fifthsOfRelativeMajor(tonic, minor) + 7) % 12) + 1}${minor ? 'A' : 'B'}`;
}

/** Open Key code: C major 1d, A minor 1m, G major 2d, ... */
export function openKey(tonic: number, minor: boolean): string {
  return `${fifthsOfRelativeMajor(tonic, minor) + 1}${minor ? 'm' : 'd'}`;
}
