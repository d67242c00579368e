/**
 * A held-out corpus that sounds like real instruments: pieces composed here,
 * written as MIDI (@tonejs/midi, a bench-only dependency) and rendered with
 * FluidSynth and the FluidR3 General MIDI soundfont, then encoded to FLAC,
 * with a manifest.jsonl in the format of ../shared/eval/manifest.jsonl.
 *
 *   node dist/bench/dev/soundfont/compose.js --out bench/.generated/sf-corpus --count 72 --seed 1
 *        [--soundfont /usr/share/sounds/sf2/FluidR3_GM.sf2] [--midi-only]
 *
 * The composer is deliberately independent of test/fixtures/music.ts (which
 * the estimators were tuned on): other harmony, other rhythms, other timbres.
 * Needs `fluidsynth`, `fluid-soundfont-gm` and ffmpeg (Debian packages).
 * Deterministic from --seed and --count (the MIDI files byte for byte; the
 * audio as far as FluidSynth is deterministic, which it is for one version).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const DEFAULT_SOUNDFONT = '/usr/share/sounds/sf2/FluidR3_GM.sf2';
const PPQ = 480;

// ---------------------------------------------------------------------------
// The slice of @tonejs/midi used here. Declared rather than imported so the
// root `tsc` still compiles when bench/node_modules is not installed (the
// same reason bench/accuracy/essentia.ts declares essentia.js's API).

interface MidiTrack {
  channel: number;
  name: string;
  instrument: { number: number };
  addNote(note: { midi: number; ticks: number; durationTicks: number; velocity: number }): unknown;
  addCC(cc: { number: number; ticks: number; value: number }): unknown;
}
interface MidiFile {
  header: { ppq: number; name: string; setTempo(bpm: number): void; timeSignatures: { ticks: number; timeSignature: number[] }[]; tempos: { bpm: number }[] };
  addTrack(): MidiTrack;
  toArray(): Uint8Array;
}

function loadMidi(): new () => MidiFile {
  const require = createRequire(join(repoRoot, 'bench', 'package.json'));
  try {
    return (require('@tonejs/midi') as { Midi: new () => MidiFile }).Midi;
  } catch (err) {
    throw new Error(`@tonejs/midi is not installed: run \`(cd bench && npm ci)\` (${(err as Error).message.split('\n')[0]})`);
  }
}

// ---------------------------------------------------------------------------
// Randomness: a small seeded generator of our own so a corpus is reproducible
// from its seed alone.

class Random {
  private state: number;
  constructor(seed: number) {
    this.state = (seed * 0x9e3779b1) >>> 0 || 1;
  }
  /** Uniform in [0, 1) (mulberry32). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  range(lo: number, hi: number): number {
    return lo + (hi - lo) * this.next();
  }
  int(lo: number, hiInclusive: number): number {
    return lo + Math.floor(this.next() * (hiInclusive - lo + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
  /** Roughly normal (Irwin-Hall of 4), for humanising. */
  gauss(sd: number): number {
    return ((this.next() + this.next() + this.next() + this.next() - 2) / Math.sqrt(1 / 3)) * sd;
  }
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [items[i], items[j]] = [items[j]!, items[i]!];
    }
    return items;
  }
}

// ---------------------------------------------------------------------------
// Harmony. Chords are written as roman numerals relative to the tonic; one
// table serves both modes (iv in a major key is the borrowed minor iv).

/** Spelled as the manifests spell keys (and as bench/accuracy/metrics.ts parses them). */
const TONIC_SPELLING = ['C', 'C#', 'D', 'Eb', 'E', 'F', 'F#', 'G', 'Ab', 'A', 'Bb', 'B'] as const;

const MAJ = [0, 4, 7];
const MIN = [0, 3, 7];
const DIM = [0, 3, 6];
const MAJ7 = [0, 4, 7, 11];
const DOM7 = [0, 4, 7, 10];
const MIN7 = [0, 3, 7, 10];
const HALF_DIM7 = [0, 3, 6, 10];

const NUMERALS: Record<string, { root: number; intervals: number[] }> = {
  I: { root: 0, intervals: MAJ }, Imaj7: { root: 0, intervals: MAJ7 },
  i: { root: 0, intervals: MIN }, i7: { root: 0, intervals: MIN7 },
  ii: { root: 2, intervals: MIN }, ii7: { root: 2, intervals: MIN7 }, II7: { root: 2, intervals: DOM7 },
  iio: { root: 2, intervals: DIM }, iio7: { root: 2, intervals: HALF_DIM7 },
  III: { root: 3, intervals: MAJ }, IIImaj7: { root: 3, intervals: MAJ7 },
  iii: { root: 4, intervals: MIN }, iii7: { root: 4, intervals: MIN7 },
  IV: { root: 5, intervals: MAJ }, IVmaj7: { root: 5, intervals: MAJ7 },
  iv: { root: 5, intervals: MIN }, iv7: { root: 5, intervals: MIN7 },
  V: { root: 7, intervals: MAJ }, V7: { root: 7, intervals: DOM7 }, v: { root: 7, intervals: MIN },
  bVI: { root: 8, intervals: MAJ }, VI: { root: 8, intervals: MAJ }, VImaj7: { root: 8, intervals: MAJ7 },
  vi: { root: 9, intervals: MIN }, vi7: { root: 9, intervals: MIN7 }, VI7: { root: 9, intervals: DOM7 },
  bVII: { root: 10, intervals: MAJ }, VII: { root: 10, intervals: MAJ },
};

interface Progression {
  /** Repeated to fill the piece; a loop that does not start on the tonic gets a tonic bar first. */
  loop: string[];
  /** Ends the piece; its last chord is the tonic. */
  cadence: string[];
}

// "D" is the minor-key dominant: V (harmonic minor) or v (natural minor),
// decided per piece, so some minor pieces raise the leading tone and some don't.
const POP_MAJOR: Progression[] = [
  { loop: ['I', 'V', 'vi', 'IV'], cadence: ['IV', 'V', 'I'] },
  { loop: ['vi', 'IV', 'I', 'V'], cadence: ['IV', 'V', 'I'] },
  { loop: ['I', 'vi', 'IV', 'V'], cadence: ['ii', 'V', 'I'] },
  { loop: ['I', 'IV', 'vi', 'V'], cadence: ['IV', 'V', 'I'] },
  { loop: ['I', 'iii', 'IV', 'V'], cadence: ['ii', 'V', 'I'] },
  { loop: ['I', 'bVII', 'IV', 'I'], cadence: ['IV', 'V', 'I'] },
  { loop: ['I', 'IV', 'iv', 'I'], cadence: ['ii', 'V', 'I'] },
  { loop: ['I', 'V', 'IV', 'V'], cadence: ['bVI', 'bVII', 'I'] },
  { loop: ['IV', 'I', 'V', 'vi'], cadence: ['IV', 'V', 'I'] },
  { loop: ['I', 'vi', 'ii', 'V'], cadence: ['IV', 'V', 'I'] },
];
const POP_MINOR: Progression[] = [
  { loop: ['i', 'VI', 'III', 'VII'], cadence: ['iv', 'D', 'i'] },
  { loop: ['i', 'iv', 'D', 'i'], cadence: ['iv', 'D', 'i'] },
  { loop: ['i', 'VII', 'VI', 'VII'], cadence: ['VI', 'VII', 'i'] },
  { loop: ['i', 'VI', 'iv', 'D'], cadence: ['iv', 'D', 'i'] },
  { loop: ['i', 'iv', 'VII', 'III'], cadence: ['VI', 'D', 'i'] },
  { loop: ['i', 'VI', 'VII', 'i'], cadence: ['VI', 'VII', 'i'] },
  { loop: ['VI', 'VII', 'i', 'i'], cadence: ['iio', 'D', 'i'] },
  { loop: ['i', 'III', 'VII', 'iv'], cadence: ['iv', 'D', 'i'] },
];
const JAZZ_MAJOR: Progression[] = [
  { loop: ['Imaj7', 'vi7', 'ii7', 'V7'], cadence: ['ii7', 'V7', 'Imaj7'] },
  { loop: ['iii7', 'vi7', 'ii7', 'V7'], cadence: ['ii7', 'V7', 'Imaj7'] },
  { loop: ['Imaj7', 'VI7', 'ii7', 'V7'], cadence: ['ii7', 'V7', 'Imaj7'] },
  { loop: ['ii7', 'V7', 'Imaj7', 'Imaj7'], cadence: ['ii7', 'V7', 'Imaj7'] },
  { loop: ['Imaj7', 'IVmaj7', 'iii7', 'VI7', 'ii7', 'V7'], cadence: ['ii7', 'V7', 'Imaj7'] },
];
// Jazz minor keeps the harmonic-minor V7: that is how the idiom resolves.
const JAZZ_MINOR: Progression[] = [
  { loop: ['i7', 'iv7', 'iio7', 'V7'], cadence: ['iio7', 'V7', 'i7'] },
  { loop: ['i7', 'VImaj7', 'iio7', 'V7'], cadence: ['iio7', 'V7', 'i7'] },
  { loop: ['iio7', 'V7', 'i7', 'i7'], cadence: ['iio7', 'V7', 'i7'] },
  { loop: ['i7', 'i7', 'iv7', 'iv7', 'iio7', 'V7', 'i7', 'V7'], cadence: ['iio7', 'V7', 'i7'] },
];

interface Chord {
  numeral: string;
  /** Pitch classes, root first. */
  pcs: number[];
  rootPc: number;
  startQ: number;
  lengthQ: number;
}

function chordPcs(numeral: string, tonicPc: number): { rootPc: number; pcs: number[] } {
  const n = NUMERALS[numeral];
  if (!n) throw new Error(`unknown chord ${numeral}`);
  const rootPc = (tonicPc + n.root) % 12;
  return { rootPc, pcs: n.intervals.map((iv) => (rootPc + iv) % 12) };
}

const MAJOR_SCALE = [0, 2, 4, 5, 7, 9, 11];
const NATURAL_MINOR = [0, 2, 3, 5, 7, 8, 10];

/**
 * The scale a melody uses over one chord: the key's scale with any degree a
 * semitone from a chord tone moved onto it, so the raised 7th appears over a
 * harmonic-minor V and the flat 6th over a borrowed iv, never against them.
 */
function scaleOver(chord: Chord, tonicPc: number, minor: boolean): number[] {
  const scale = (minor ? NATURAL_MINOR : MAJOR_SCALE).map((d) => (tonicPc + d) % 12);
  for (const pc of chord.pcs) {
    if (scale.includes(pc)) continue;
    const i = scale.findIndex((s) => (s + 1) % 12 === pc || (s + 11) % 12 === pc);
    if (i >= 0) scale[i] = pc;
  }
  return scale.sort((a, b) => a - b);
}

// ---------------------------------------------------------------------------
// Pieces

type Style = 'band' | 'piano' | 'strings' | 'jazz' | 'waltz' | 'compound';

/** Truth tempo range per style (quarter notes; dotted quarters in 6/8): where the idiom lives. */
const TEMPO_RANGE: Record<Style, [number, number]> = {
  band: [72, 200], piano: [60, 150], strings: [60, 140], jazz: [70, 200], waltz: [80, 200], compound: [60, 130],
};
const GROUP: Record<Style, string> = {
  band: 'sf-band', piano: 'sf-piano', strings: 'sf-strings', jazz: 'sf-jazz', waltz: 'sf-waltz', compound: 'sf-6-8',
};

interface PieceSpec {
  index: number;
  style: Style;
  /** The labelled tempo: quarter notes, or dotted quarters in 6/8. */
  bpm: number;
  tonicPc: number;
  minor: boolean;
  seed: number;
}

interface NoteEvent {
  /** Onset in quarter notes from the start. */
  q: number;
  lengthQ: number;
  midi: number;
  velocity: number;
}

interface Part {
  name: string;
  channel: number;
  program: number;
  volume: number;
  pan: number;
  notes: NoteEvent[];
  /** Sustain pedal changes: [q, down]. */
  pedal?: [number, boolean][];
  /** Timing spread in ms (sd); drummers and bassists sit tighter than a soloist. */
  jitterMs: number;
  /** Constant lateness in ms: a soloist lays back a little. */
  lagMs?: number;
}

interface Composition {
  spec: PieceSpec;
  /** Quarter-note tempo actually written to the MIDI file. */
  quarterBpm: number;
  meter: [number, number];
  barQ: number;
  bars: number;
  chords: Chord[];
  parts: Part[];
  genre: string;
  description: string;
}

/** A voicing of the chord within [lo, hi] that moves least from the previous one. */
function voiceLead(pcs: number[], previous: number[] | null, lo: number, hi: number, size: number): number[] {
  let best: number[] = [];
  let bestCost = Infinity;
  // Close position over the chord's distinct tones; a fourth voice on a triad doubles the bass an octave up.
  const tones = pcs.slice(0, size);
  for (let inversion = 0; inversion < tones.length; inversion++) {
    const order = [...tones.slice(inversion), ...tones.slice(0, inversion)];
    for (let base = lo; base < lo + 12; base++) {
      if (base % 12 !== order[0]) continue;
      const voicing = [base];
      for (const pc of order.slice(1)) {
        let m = voicing[voicing.length - 1]! + 1;
        while (m % 12 !== pc) m++;
        voicing.push(m);
      }
      if (size > tones.length) voicing.push(base + 12);
      if (voicing[voicing.length - 1]! > hi) continue;
      const centre = (lo + hi) / 2;
      const cost = previous && previous.length === voicing.length
        ? voicing.reduce((s, m, i) => s + Math.abs(m - previous[i]!), 0)
        : Math.abs(voicing.reduce((s, m) => s + m, 0) / voicing.length - centre);
      if (cost < bestCost) {
        bestCost = cost;
        best = voicing;
      }
    }
  }
  if (!best.length) throw new RangeError(`no ${size}-note voicing of [${pcs.join(' ')}] within ${lo}..${hi}`);
  return best;
}

/** The note of pitch class pc nearest to `near`, kept inside [lo, hi]. */
function nearestPc(pc: number, near: number, lo: number, hi: number): number {
  let best = -1;
  for (let m = lo; m <= hi; m++) if (m % 12 === pc && (best < 0 || Math.abs(m - near) < Math.abs(best - near))) best = m;
  if (best < 0) throw new RangeError(`no pitch class ${pc} in ${lo}..${hi}`);
  return best;
}

function chordAt(chords: Chord[], q: number): Chord {
  for (let i = chords.length - 1; i >= 0; i--) if (chords[i]!.startQ <= q + 1e-9) return chords[i]!;
  return chords[0]!;
}

/** The chord sequence: tonic first, the loop, the cadence, the tonic held through the last bar. */
function planChords(rng: Random, progression: Progression, spec: PieceSpec, slotQ: number, totalQ: number, barQ: number, dominant: string): Chord[] {
  const resolve1 = (n: string): string => (n === 'D' ? dominant : n);
  const tonic = progression.cadence[progression.cadence.length - 1]!;
  const slots = Math.round(totalQ / slotQ);
  const finalSlots = Math.max(1, Math.round(barQ / slotQ));
  const cadence = progression.cadence.slice(0, -1).map(resolve1);
  const sequence: string[] = [];
  const startsOnTonic = ['I', 'i', 'Imaj7', 'i7'].includes(progression.loop[0]!);
  if (!startsOnTonic) sequence.push(...Array<string>(Math.max(1, Math.round(barQ / slotQ))).fill(tonic));
  const middle = slots - finalSlots - cadence.length - sequence.length;
  for (let i = 0; i < middle; i++) sequence.push(resolve1(progression.loop[i % progression.loop.length]!));
  sequence.push(...cadence);
  for (let i = 0; i < finalSlots; i++) sequence.push(tonic);
  // Colour, as players add it: now and then a seventh on the dominant.
  const coloured = sequence.map((n) => (n === 'V' && rng.chance(0.3) ? 'V7' : n));
  return coloured.map((numeral, i) => ({ numeral, ...chordPcs(numeral, spec.tonicPc), startQ: i * slotQ, lengthQ: slotQ }));
}

/** Melody rhythms (onset, length in quarter notes) per bar. */
const RHYTHMS: Record<'4' | '3' | '6', [number, number][][]> = {
  '4': [
    [[0, 1], [1, 1], [2, 1.5], [3.5, 0.5]],
    [[0, 1.5], [1.5, 0.5], [2, 2]],
    [[0, 0.5], [0.5, 0.5], [1, 1], [2, 0.5], [2.5, 0.5], [3, 1]],
    [[0, 2], [2, 1], [3, 1]],
    [[0.5, 0.5], [1, 1], [2, 1], [3, 0.5], [3.5, 0.5]],
    [[0, 3], [3, 0.5], [3.5, 0.5]],
    [[0, 1], [1, 0.5], [1.5, 1], [2.5, 0.5], [3, 1]],
  ],
  '3': [
    [[0, 2], [2, 1]],
    [[0, 1], [1, 1], [2, 1]],
    [[0, 1.5], [1.5, 0.5], [2, 1]],
    [[0, 1], [1, 0.5], [1.5, 0.5], [2, 1]],
    [[0, 3]],
  ],
  '6': [
    [[0, 1], [1, 0.5], [1.5, 1], [2.5, 0.5]],
    [[0, 1.5], [1.5, 1.5]],
    [[0, 0.5], [0.5, 0.5], [1, 0.5], [1.5, 1.5]],
    [[0, 1], [1, 0.5], [1.5, 0.5], [2, 0.5], [2.5, 0.5]],
    [[0, 3]],
  ],
};

/**
 * A melody: chord tones on the beats, passing and neighbour tones between
 * them, phrases of two bars built from two rhythm motifs (A A' B A'' ...), a
 * breath at phrase ends, and the last note on the tonic.
 */
function composeMelody(rng: Random, c: Composition, lo: number, hi: number, fromBar: number, slow: boolean): NoteEvent[] {
  const meterKey = c.meter[0] === 6 ? '6' : c.meter[0] === 3 ? '3' : '4';
  const pool = RHYTHMS[meterKey].filter((r) => !slow || r.length <= 4);
  const motifA = rng.pick(pool);
  const motifB = rng.pick(pool);
  const strongStep = c.meter[0] === 6 ? 1.5 : 1;
  const { tonicPc, minor } = c.spec;
  const notes: NoteEvent[] = [];
  let previous = nearestPc(tonicPc, (lo + hi) / 2, lo, hi);
  let direction = rng.chance(0.5) ? 1 : -1;
  for (let bar = fromBar; bar < c.bars - 1; bar++) {
    const phraseBar = (bar - fromBar) % 4;
    const rhythm = phraseBar === 2 ? motifB : motifA;
    // The end of every phrase breathes: its last bar keeps only its first notes.
    const kept = phraseBar === 3 ? rhythm.filter(([on]) => on < c.barQ / 2) : rhythm;
    for (let k = 0; k < kept.length; k++) {
      const [on, len] = kept[k]!;
      const q = bar * c.barQ + on;
      const chord = chordAt(c.chords, q);
      const scale = scaleOver(chord, tonicPc, minor);
      const strong = Math.abs(on / strongStep - Math.round(on / strongStep)) < 1e-9;
      if (rng.chance(0.2)) direction = -direction;
      if (previous > hi - 3) direction = -1;
      if (previous < lo + 3) direction = 1;
      let midi: number;
      if (strong) {
        // A chord tone near the last note in the running direction; now and then a leap.
        const reach = rng.chance(0.15) ? 9 : 5;
        const ahead: number[] = [];
        for (let m = lo; m <= hi; m++) {
          if (!chord.pcs.includes(m % 12) || Math.abs(m - previous) > reach) continue;
          if (direction > 0 ? m >= previous : m <= previous) ahead.push(m);
        }
        ahead.sort((a, b) => Math.abs(a - previous) - Math.abs(b - previous));
        midi = ahead.length ? rng.pick(ahead.slice(0, 2)) : nearestPc(rng.pick(chord.pcs), previous, lo, hi);
      } else {
        // A step along the scale: a passing tone when the line goes on, a neighbour when it turns.
        const steps: number[] = [];
        for (let m = lo; m <= hi; m++) if (scale.includes(m % 12)) steps.push(m);
        const up = steps.find((m) => m > previous);
        const down = [...steps].reverse().find((m) => m < previous);
        midi = (direction > 0 ? up ?? down : down ?? up) ?? previous;
      }
      notes.push({ q, lengthQ: len * (rng.chance(0.3) ? 0.7 : 0.95), midi, velocity: (strong ? 0.78 : 0.66) + (on === 0 ? 0.06 : 0) });
      previous = midi;
    }
  }
  // The last note: the tonic, reached from the nearest octave, held through the final bar.
  const last = nearestPc(tonicPc, previous, lo, hi);
  notes.push({ q: (c.bars - 1) * c.barQ, lengthQ: c.barQ, midi: last, velocity: 0.75 });
  return notes;
}

/** A bass line over the chords, in one of a few idioms. */
function composeBass(rng: Random, c: Composition, idiom: 'eighths' | 'root-fifth' | 'pop' | 'walking' | 'waltz' | 'compound' | 'half', lo = 28, hi = 52): NoteEvent[] {
  const notes: NoteEvent[] = [];
  let previous = nearestPc(c.chords[0]!.rootPc, 40, lo, hi);
  c.chords.forEach((chord, ci) => {
    const next = c.chords[ci + 1];
    const root = nearestPc(chord.rootPc, previous, lo, hi);
    const fifth = nearestPc((chord.rootPc + 7) % 12, root + 5, lo, hi);
    const octave = root + 12 <= hi ? root + 12 : root;
    const at = (offset: number, len: number, midi: number, velocity: number) => {
      if (offset < chord.lengthQ - 1e-9) notes.push({ q: chord.startQ + offset, lengthQ: Math.min(len, chord.lengthQ - offset), midi, velocity });
    };
    const isLast = !next;
    if (isLast) {
      at(0, chord.lengthQ, root, 0.8);
    } else if (idiom === 'walking') {
      const beats = Math.round(chord.lengthQ);
      const nextRoot = nearestPc(next.rootPc, root, lo, hi);
      const tones = [chord.pcs[1]!, chord.pcs[2]!, chord.pcs[3] ?? chord.pcs[0]!];
      let walk = root;
      for (let b = 0; b < beats; b++) {
        let m: number;
        if (b === 0) m = root;
        else if (b === beats - 1) m = rng.chance(0.7) ? nextRoot + (nextRoot + 1 <= hi && (nextRoot - 1 < lo || rng.chance(0.5)) ? 1 : -1) : nearestPc(chord.pcs[2]!, walk, lo, hi);
        else m = nearestPc(tones[(b - 1) % tones.length]!, walk + (nextRoot > walk ? 2 : -2), lo, hi);
        at(b, 0.9, m, b === 0 ? 0.8 : 0.7);
        walk = m;
      }
    } else if (idiom === 'eighths') {
      for (let e = 0; e * 0.5 < chord.lengthQ; e++) {
        const lastEighth = (e + 1) * 0.5 >= chord.lengthQ;
        at(e * 0.5, 0.45, lastEighth && rng.chance(0.4) ? (rng.chance(0.5) ? octave : fifth) : root, e % 2 === 0 ? 0.8 : 0.65);
      }
    } else if (idiom === 'root-fifth') {
      for (let b = 0; b < chord.lengthQ; b += 2) {
        at(b, 1.4, root, 0.8);
        at(b + 1.5, 0.45, root, 0.6);
        at(b + 1, 0.9, b + 2 >= chord.lengthQ && rng.chance(0.5) ? octave : fifth, 0.68);
      }
    } else if (idiom === 'pop') {
      for (let b = 0; b < chord.lengthQ; b += 4) {
        at(b, 1.4, root, 0.82);
        at(b + 1.5, 0.9, root, 0.66);
        at(b + 2.5, 0.45, rng.chance(0.5) ? fifth : root, 0.62);
        at(b + 3, 0.9, rng.chance(0.4) ? octave : root, 0.7);
      }
    } else if (idiom === 'waltz') {
      for (let b = 0; b < chord.lengthQ; b += 3) at(b, 0.95, b % 6 === 0 ? root : fifth, 0.8);
    } else if (idiom === 'compound') {
      for (let b = 0; b < chord.lengthQ; b += 1.5) at(b, 1.3, b % 3 === 0 ? root : rng.chance(0.6) ? fifth : root, b % 3 === 0 ? 0.8 : 0.66);
    } else {
      for (let b = 0; b < chord.lengthQ; b += 2) at(b, 1.9, b % 4 === 0 ? root : fifth, 0.75);
    }
    previous = root;
  });
  return notes;
}

/** Block chords with voice leading, on a rhythm (onsets within one bar, lengths in quarter notes). */
function comp(c: Composition, rhythm: [number, number, number][], lo: number, hi: number, size: number, strumMs = 0): NoteEvent[] {
  const notes: NoteEvent[] = [];
  let voicing: number[] | null = null;
  for (let bar = 0; bar < c.bars; bar++) {
    const final = bar === c.bars - 1;
    for (const [on, len, velocity] of final ? [[0, c.barQ, 0.7] as [number, number, number]] : rhythm) {
      const q = bar * c.barQ + on;
      const chord = chordAt(c.chords, q);
      voicing = voiceLead(chord.pcs, voicing, lo, hi, size);
      const strumQ = (strumMs / 1000) * (c.quarterBpm / 60);
      voicing.forEach((midi, i) => notes.push({ q: q + i * strumQ, lengthQ: len, midi, velocity: velocity * (i === voicing!.length - 1 ? 1.05 : 0.95) }));
    }
  }
  return notes;
}

/** Broken chords (Alberti, arpeggios) in one bar's pattern of chord-tone indices. */
function brokenChords(c: Composition, pattern: number[], stepQ: number, lo: number, hi: number, velocity: number, size = 3, sustain = 1.0): NoteEvent[] {
  const notes: NoteEvent[] = [];
  let voicing: number[] | null = null;
  for (let bar = 0; bar < c.bars; bar++) {
    if (bar === c.bars - 1) {
      const chord = chordAt(c.chords, bar * c.barQ);
      voicing = voiceLead(chord.pcs, voicing, lo, hi, size);
      voicing.forEach((midi, i) => notes.push({ q: bar * c.barQ + i * 0.02, lengthQ: c.barQ, midi, velocity }));
      continue;
    }
    for (let step = 0; step * stepQ < c.barQ - 1e-9; step++) {
      const q = bar * c.barQ + step * stepQ;
      const chord = chordAt(c.chords, q);
      if (Math.abs(chord.startQ - q) < 1e-9 || !voicing) voicing = voiceLead(chord.pcs, voicing, lo, hi, size);
      const idx = pattern[step % pattern.length]!;
      const midi = idx >= voicing.length ? voicing[idx % voicing.length]! + 12 : voicing[idx]!;
      notes.push({ q, lengthQ: stepQ * sustain, midi, velocity: velocity * (step === 0 ? 1.1 : 1) });
    }
  }
  return notes;
}

const KICK = 36, SNARE = 38, RIM = 37, CLOSED_HAT = 42, PEDAL_HAT = 44, OPEN_HAT = 46, CRASH = 49, RIDE = 51;
const TOMS = [50, 48, 47, 45, 43];

type Hit = [number, number, number];

/** A drum part: one bar's pattern repeated, fills before every fourth bar and the last, a crash after them. */
function drums(rng: Random, c: Composition, pattern: Hit[], fillStyle: 'toms' | 'snare' | 'jazz' | 'none'): NoteEvent[] {
  const notes: NoteEvent[] = [];
  const hit = (q: number, midi: number, velocity: number) => notes.push({ q, lengthQ: 0.25, midi, velocity });
  for (let bar = 0; bar < c.bars; bar++) {
    const start = bar * c.barQ;
    if (bar === c.bars - 1) {
      hit(start, KICK, 0.9);
      hit(start, CRASH, 0.85);
      continue;
    }
    const fill = fillStyle !== 'none' && (bar % 4 === 3 || bar === c.bars - 2) && bar > 0;
    const fillFrom = c.barQ - (c.quarterBpm > 150 ? 2 : 1);
    if (bar === 0 || (bar % 4 === 0 && fillStyle !== 'jazz')) hit(start, CRASH, 0.8);
    for (const [on, midi, velocity] of pattern) {
      if (fill && on >= fillFrom) continue;
      if (midi === CLOSED_HAT && bar === 0 && on === 0) continue;
      // Drummers vary: now and then an extra kick or a dropped ghost note.
      if (velocity < 0.35 && rng.chance(0.3)) continue;
      hit(start + on, midi, velocity);
    }
    if (fill) {
      const step = c.quarterBpm > 130 ? 0.5 : 0.25;
      const n = Math.round((c.barQ - fillFrom) / step);
      for (let k = 0; k < n; k++) {
        const q = start + fillFrom + k * step;
        if (fillStyle === 'toms') hit(q, k < n / 3 ? SNARE : TOMS[Math.min(TOMS.length - 1, Math.floor(((k - n / 3) / (n - n / 3)) * TOMS.length))]!, 0.7 + 0.2 * (k / n));
        else if (fillStyle === 'snare') hit(q, SNARE, 0.55 + 0.35 * (k / n));
        else if (k % 2 === 0 || rng.chance(0.5)) hit(q, SNARE, 0.45 + 0.3 * (k / n));
      }
      if (fillStyle !== 'jazz') hit(start + fillFrom, KICK, 0.8);
    }
  }
  return notes;
}

function part(name: string, channel: number, program: number, volume: number, pan: number, notes: NoteEvent[], jitterMs: number, lagMs = 0): Part {
  return { name, channel, program, volume, pan, notes, jitterMs, lagMs };
}

/** Sustain pedal: down just after each chord change, up just before the next (a legato pedal). */
function pedalling(c: Composition): [number, boolean][] {
  const changes: [number, boolean][] = [];
  for (const chord of c.chords) {
    changes.push([Math.max(0, chord.startQ - 0.05), false]);
    changes.push([chord.startQ + 0.08, true]);
  }
  changes.push([c.bars * c.barQ, false]);
  return changes;
}

const MELODY_INSTRUMENTS: Record<string, { program: number; centre: number }> = {
  'flute': { program: 73, centre: 79 }, 'violin': { program: 40, centre: 74 }, 'alto sax': { program: 65, centre: 70 },
  'tenor sax': { program: 66, centre: 63 }, 'trumpet': { program: 56, centre: 70 }, 'clarinet': { program: 71, centre: 70 },
  'oboe': { program: 68, centre: 74 }, 'vibraphone': { program: 11, centre: 74 }, 'square lead': { program: 80, centre: 72 },
  'accordion': { program: 21, centre: 72 }, 'overdriven guitar': { program: 29, centre: 67 }, 'harmonica': { program: 22, centre: 72 },
};

function melodyPart(rng: Random, c: Composition, instrument: string, fromBar: number, channel = 0): Part {
  const inst = MELODY_INSTRUMENTS[instrument]!;
  const slow = c.quarterBpm > 150;
  return part(`melody (${instrument})`, channel, inst.program, 100, 64, composeMelody(rng, c, inst.centre - 9, inst.centre + 10, fromBar, slow), 7, 6);
}

function compose(spec: PieceSpec): Composition {
  const rng = new Random(spec.seed);
  const meter: [number, number] = spec.style === 'waltz' ? [3, 4] : spec.style === 'compound' ? [6, 8] : [4, 4];
  const barQ = meter[0] === 6 ? 3 : meter[0];
  // 6/8 is felt in dotted quarters: that is the labelled beat; MIDI tempo is always per quarter note.
  const quarterBpm = spec.style === 'compound' ? spec.bpm * 1.5 : spec.bpm;
  const jazz = spec.style === 'jazz';
  // Harmonic rhythm: a chord a bar; two a bar for slower swing; a chord every two bars in a fast waltz.
  const slotQ = jazz && quarterBpm < 150 ? 2 : spec.style === 'waltz' && quarterBpm > 150 ? 6 : barQ;
  const barsPerSlot = Math.max(1, slotQ / barQ);
  const barSeconds = (barQ * 60) / quarterBpm;
  const targetSeconds = rng.range(20.5, 28.5);
  let bars = Math.max(5, Math.min(Math.floor(29 / barSeconds), Math.round(targetSeconds / barSeconds)));
  bars -= bars % barsPerSlot;
  const totalQ = bars * barQ;

  const progressions = jazz ? (spec.minor ? JAZZ_MINOR : JAZZ_MAJOR) : spec.minor ? POP_MINOR : POP_MAJOR;
  const progression = rng.pick(progressions);
  const harmonicV = rng.chance(0.55);
  const dominant = harmonicV ? 'V' : 'v';
  const chords = planChords(rng, progression, spec, slotQ, totalQ, barQ, dominant);
  const c: Composition = { spec, quarterBpm, meter, barQ, bars, chords, parts: [], genre: '', description: '' };
  const uses = chords.map((ch) => ch.numeral);
  const minorDominant = spec.minor && (uses.includes('V') || uses.includes('V7')) ? 'harmonic-minor V' : spec.minor ? 'natural-minor (no leading tone)' : '';
  const details: string[] = [];

  switch (spec.style) {
    case 'band': {
      const pattern = rockPattern(rng, quarterBpm);
      const melodyName = rng.pick(['alto sax', 'trumpet', 'square lead', 'flute', 'violin', 'overdriven guitar', 'harmonica', 'clarinet']);
      const guitar = rng.chance(0.45);
      const bassIdiom = rng.pick(quarterBpm > 150 ? (['half', 'root-fifth'] as const) : (['eighths', 'root-fifth', 'pop'] as const));
      const compRhythm: [number, number, number][] = guitar
        ? rng.pick([
          [[0, 1.4, 0.7], [1.5, 0.9, 0.6], [2.5, 0.4, 0.55], [3, 0.9, 0.6]],
          [[0, 0.9, 0.7], [1, 0.9, 0.6], [2, 0.9, 0.65], [3, 0.9, 0.6]],
        ])
        : rng.pick([
          [[0, 1.4, 0.65], [1.5, 2.4, 0.6]],
          [[0, 0.9, 0.62], [1, 0.9, 0.55], [2, 0.9, 0.6], [3, 0.9, 0.55]],
          [[0, 3.9, 0.62]],
          [[0, 1.4, 0.62], [1.5, 1, 0.55], [3, 0.9, 0.55]],
        ]);
      c.parts.push(part(`drums (${pattern.name})`, 9, 0, 105, 64, drums(rng, c, pattern.hits, rng.chance(0.6) ? 'toms' : 'snare'), 3));
      c.parts.push(part(`bass (${bassIdiom})`, 1, rng.pick([33, 34, 33]), 100, 64, composeBass(rng, c, bassIdiom), 4));
      c.parts.push(guitar
        ? part('clean guitar', 2, 27, 85, 40, comp(c, compRhythm, 52, 71, 4, 12), 5)
        : part('piano', 2, 0, 88, 44, comp(c, compRhythm, 53, 72, 4), 5));
      if (rng.chance(0.5)) c.parts.push(part('string pad', 3, 48, 62, 90, comp(c, [[0, barQ, 0.5]], 60, 79, 3), 3));
      c.parts.push(melodyPart(rng, c, melodyName, rng.pick([1, 2])));
      c.genre = 'pop-rock';
      details.push(`drums ${pattern.name} with fills`, `bass ${bassIdiom}`, guitar ? 'clean guitar strums' : 'piano comping', `${melodyName} melody`);
      break;
    }
    case 'piano': {
      const idiom = rng.pick(['alberti', 'arpeggio', 'ballad'] as const);
      let left: NoteEvent[];
      if (idiom === 'alberti') left = brokenChords(c, [0, 2, 1, 2], quarterBpm > 110 ? 0.5 : 0.5, 48, 64, 0.5, 3, 0.9);
      else if (idiom === 'arpeggio') left = brokenChords(c, [0, 1, 2, 3, 4, 3, 2, 1], 0.5, 40, 60, 0.5, 3, 1.6);
      else {
        left = composeBass(rng, c, 'half', 33, 50).map((n) => ({ ...n, velocity: 0.62 }));
        left.push(...comp(c, [[1, 0.9, 0.45], [2, 0.9, 0.48], [3, 0.9, 0.45]], 52, 67, 3));
      }
      const lh = part(`left hand (${idiom})`, 1, 0, 95, 56, left, 6);
      lh.pedal = pedalling(c);
      const rh = melodyPartOn(rng, c, 0, 0, 66, 84, 1);
      rh.pedal = lh.pedal;
      c.parts.push(lh, rh);
      c.genre = `piano-${idiom}`;
      details.push(`piano solo, left hand ${idiom}, melody in the right hand, sustain pedal`);
      break;
    }
    case 'strings': {
      const padProgram = rng.pick([48, 49]);
      c.parts.push(part('string pad', 2, padProgram, 80, 70, comp(c, [[0, barQ * 0.98, 0.55]], 55, 76, 4), 4));
      c.parts.push(part('pizzicato bass', 1, 45, 105, 60, composeBass(rng, c, 'half', 36, 55).map((n) => ({ ...n, lengthQ: 0.5, velocity: 0.85 })), 5));
      c.parts.push(part('pizzicato arpeggio', 3, 45, 92, 40, brokenChords(c, rng.pick([[0, 1, 2, 1], [0, 2, 1, 2], [0, 1, 2, 3]]), 0.5, 60, 79, 0.62, 3, 0.5), 5));
      const mel = rng.pick(['violin', 'flute', 'oboe', 'clarinet']);
      c.parts.push(melodyPart(rng, c, mel, 1));
      c.genre = 'strings';
      details.push(`string ensemble pad (program ${padProgram}), pizzicato bass and arpeggios, ${mel} melody`);
      break;
    }
    case 'jazz': {
      c.parts.push(part('drums (swing ride)', 9, 32, 100, 64, drums(rng, c, swingPattern(), 'jazz'), 4));
      c.parts.push(part('walking bass', 1, 32, 110, 64, composeBass(rng, c, 'walking', 28, 50), 5));
      const guitar = rng.chance(0.35);
      const charleston: [number, number, number][] = rng.pick([
        [[0, 0.6, 0.55], [1.5, 0.6, 0.5]],
        [[0.5, 0.6, 0.5], [2, 0.6, 0.55], [3.5, 0.4, 0.45]],
        [[1, 0.6, 0.5], [3, 0.6, 0.5]],
      ]);
      c.parts.push(part(guitar ? 'jazz guitar comping' : 'piano comping', 2, guitar ? 26 : 0, 82, 42, comp(c, charleston, 52, 70, 4), 8));
      const mel = rng.pick(['tenor sax', 'alto sax', 'trumpet', 'vibraphone', 'flute']);
      c.parts.push(melodyPart(rng, c, mel, rng.pick([1, 2])));
      c.genre = 'jazz-swing';
      details.push('swing ride and hi-hat on 2 and 4', 'walking bass', guitar ? 'jazz guitar comping' : 'piano comping', `${mel} melody`);
      break;
    }
    case 'waltz': {
      const flavour = rng.pick(['piano', 'musette', 'orchestral'] as const);
      if (flavour === 'piano') {
        const left = composeBass(rng, c, 'waltz', 33, 52);
        left.push(...comp(c, [[1, 0.8, 0.45], [2, 0.8, 0.42]], 53, 69, 3));
        const lh = part('left hand (oom-pah-pah)', 1, 0, 95, 56, left, 6);
        c.parts.push(lh, melodyPartOn(rng, c, 0, 0, 67, 86, 1));
      } else if (flavour === 'musette') {
        c.parts.push(part('bass', 1, 32, 100, 64, composeBass(rng, c, 'waltz'), 5));
        c.parts.push(part('guitar', 2, 24, 90, 40, comp(c, [[1, 0.8, 0.55], [2, 0.8, 0.5]], 52, 69, 3, 10), 6));
        c.parts.push(melodyPart(rng, c, 'accordion', 1));
      } else {
        c.parts.push(part('pizzicato bass', 1, 45, 105, 60, composeBass(rng, c, 'waltz', 36, 55).map((n) => ({ ...n, lengthQ: 0.5 })), 5));
        c.parts.push(part('strings', 2, 48, 80, 70, comp(c, [[1, 0.8, 0.5], [2, 0.8, 0.48]], 55, 74, 3), 5));
        c.parts.push(melodyPart(rng, c, rng.pick(['flute', 'oboe', 'clarinet']), 1));
      }
      if (rng.chance(0.35)) c.parts.push(part('drums (brushes)', 9, 40, 80, 64, drums(rng, c, [[0, KICK, 0.6], [1, SNARE, 0.35], [2, SNARE, 0.32], [0, CLOSED_HAT, 0.4], [1, PEDAL_HAT, 0.35], [2, PEDAL_HAT, 0.35]], 'none'), 4));
      c.genre = 'waltz';
      details.push(`3/4 waltz, ${flavour}`);
      break;
    }
    case 'compound': {
      const flavour = rng.pick(['folk', 'ballad'] as const);
      const arpeggio = rng.pick([[0, 1, 2, 3, 2, 1], [0, 2, 3, 4, 3, 2], [0, 1, 2, 1, 2, 1]]);
      if (flavour === 'folk') {
        c.parts.push(part('bass', 1, rng.pick([32, 33]), 100, 64, composeBass(rng, c, 'compound'), 5));
        c.parts.push(part('guitar arpeggio', 2, rng.pick([24, 25]), 95, 40, brokenChords(c, arpeggio, 0.5, 48, 67, 0.55, 3, 1.8), 6));
        c.parts.push(melodyPart(rng, c, rng.pick(['flute', 'violin', 'clarinet', 'oboe']), 1));
      } else {
        const lh = part('piano arpeggio', 1, 0, 95, 56, brokenChords(c, arpeggio, 0.5, 40, 62, 0.5, 3, 1.6), 6);
        lh.pedal = pedalling(c);
        c.parts.push(lh, part('string pad', 2, 49, 70, 80, comp(c, [[0, barQ * 0.98, 0.45]], 55, 74, 3), 4));
        c.parts.push(melodyPart(rng, c, rng.pick(['violin', 'flute', 'oboe']), 1, 3));
      }
      if (rng.chance(0.6)) {
        const hits: Hit[] = [[0, KICK, 0.8], [1.5, SNARE, 0.7], [2.5, KICK, 0.45]];
        for (let e = 0; e < 6; e++) hits.push([e * 0.5, CLOSED_HAT, e % 3 === 0 ? 0.6 : 0.4]);
        c.parts.push(part('drums (6/8)', 9, 0, 95, 64, drums(rng, c, hits, 'snare'), 3));
        details.push('6/8 drums');
      }
      c.genre = `6/8-${flavour}`;
      details.push(`6/8 ${flavour}, arpeggios in eighths`);
      break;
    }
  }
  c.description = [
    `FluidR3 GM render of a composed MIDI piece: ${details.join(', ')}`,
    `progression ${progression.loop.join('-')} repeated, cadence ${progression.cadence.join('-')}`.replace(/\bD\b/g, dominant),
    `${meter[0]}/${meter[1]} at ${round2(spec.bpm)} BPM (${spec.style === 'compound' ? 'dotted quarter' : 'quarter note'})${minorDominant ? `, ${minorDominant}` : ''}`,
    'starts and ends on the tonic chord; A4 = 440 Hz; humanised velocities and timing (a few ms)',
  ].join('; ');
  return c;
}

/** The piano's right hand as a melody part (same instrument, its own channel so pedal and volume stay separate). */
function melodyPartOn(rng: Random, c: Composition, channel: number, program: number, lo: number, hi: number, fromBar: number): Part {
  const notes = composeMelody(rng, c, lo, hi, fromBar, c.quarterBpm > 150);
  // A pianist doubles some melody notes a third or sixth below, on strong beats.
  const doubled: NoteEvent[] = [];
  for (const n of notes) {
    if (Math.abs(n.q - Math.round(n.q)) > 1e-9 || !rng.chance(0.35)) continue;
    const chord = chordAt(c.chords, n.q);
    for (let d = 3; d <= 9; d++) if (chord.pcs.includes((n.midi - d + 120) % 12)) { doubled.push({ ...n, midi: n.midi - d, velocity: n.velocity * 0.8 }); break; }
  }
  return part('right hand', channel, program, 100, 72, [...notes, ...doubled], 6, 4);
}

function rockPattern(rng: Random, bpm: number): { name: string; hits: Hit[] } {
  const hits: Hit[] = [];
  if (bpm > 165) {
    for (let b = 0; b < 4; b++) hits.push([b, CLOSED_HAT, 0.7]);
    hits.push([0, KICK, 0.9], [2, KICK, 0.85], [1, SNARE, 0.85], [3, SNARE, 0.85]);
    if (rng.chance(0.5)) hits.push([1.5, KICK, 0.6]);
    return { name: 'driving quarter hats', hits };
  }
  if (bpm >= 112 && bpm <= 135 && rng.chance(0.4)) {
    for (let b = 0; b < 4; b++) hits.push([b, KICK, 0.9], [b + 0.5, OPEN_HAT, 0.6], [b + 0.25, CLOSED_HAT, 0.3], [b + 0.75, CLOSED_HAT, 0.3]);
    hits.push([1, SNARE, 0.8], [3, SNARE, 0.8]);
    return { name: 'four on the floor', hits };
  }
  if (bpm < 100) {
    for (let s = 0; s < 16; s++) hits.push([s * 0.25, CLOSED_HAT, s % 4 === 0 ? 0.6 : s % 2 === 0 ? 0.45 : 0.3]);
    hits.push([0, KICK, 0.9], [1.75, KICK, 0.55], [2.5, KICK, 0.75], [1, SNARE, 0.85], [3, SNARE, 0.85], [3.75, SNARE, 0.25]);
    return { name: '16th hats', hits };
  }
  for (let e = 0; e < 8; e++) hits.push([e * 0.5, rng.chance(0.15) && e === 7 ? OPEN_HAT : CLOSED_HAT, e % 2 === 0 ? 0.65 : 0.45]);
  hits.push([0, KICK, 0.9], [2, KICK, 0.85], [1, SNARE, 0.85], [3, SNARE, 0.85]);
  if (rng.chance(0.6)) hits.push([2.5, KICK, 0.65]);
  if (rng.chance(0.3)) hits.push([2.25, SNARE, 0.25]);
  return { name: 'rock eighths', hits };
}

function swingPattern(): Hit[] {
  // Spang-a-lang: 1, 2 (and its swung "a"), 3, 4 (and its "a"); the hi-hat foot on 2 and 4;
  // a feathered kick on every beat, barely heard.
  return [
    [0, RIDE, 0.7], [1, RIDE, 0.75], [1.5, RIDE, 0.5], [2, RIDE, 0.7], [3, RIDE, 0.75], [3.5, RIDE, 0.5],
    [1, PEDAL_HAT, 0.6], [3, PEDAL_HAT, 0.6],
    [0, KICK, 0.3], [1, KICK, 0.25], [2, KICK, 0.3], [3, KICK, 0.25],
    [2.5, SNARE, 0.28], [3.5, RIM, 0.25],
  ];
}

/** Swung eighths: the offbeat eighth moves to `ratio` of the beat (2/3 is a triplet feel). */
function swing(q: number, ratio: number): number {
  const beat = Math.floor(q + 1e-9);
  const frac = q - beat;
  return beat + (frac <= 0.5 ? (frac / 0.5) * ratio : ratio + ((frac - 0.5) / 0.5) * (1 - ratio));
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}

// ---------------------------------------------------------------------------
// MIDI, rendering, manifest

function writeMidi(Midi: new () => MidiFile, c: Composition, rng: Random): Uint8Array {
  const midi = new Midi();
  midi.header.name = `trackscan sf piece ${c.spec.index}`;
  midi.header.setTempo(c.quarterBpm);
  midi.header.timeSignatures.push({ ticks: 0, timeSignature: [c.meter[0], c.meter[1]] });
  const swingRatio = c.spec.style === 'jazz' ? (c.quarterBpm > 170 ? 0.6 : 0.65) : null;
  const ticksPerMs = (c.quarterBpm / 60000) * PPQ;
  const toTicks = (q: number) => (swingRatio ? swing(q, swingRatio) : q) * PPQ;
  for (const p of c.parts) {
    const track = midi.addTrack();
    track.name = p.name;
    track.channel = p.channel;
    track.instrument.number = p.program;
    track.addCC({ number: 7, ticks: 0, value: p.volume / 127 });
    track.addCC({ number: 10, ticks: 0, value: p.pan / 127 });
    for (const n of p.notes) {
      const start = Math.max(0, Math.round(toTicks(n.q) + (rng.gauss(p.jitterMs) + (p.lagMs ?? 0)) * ticksPerMs));
      const end = Math.round(toTicks(n.q + n.lengthQ));
      const velocity = Math.min(1, Math.max(0.12, n.velocity * (1 + rng.gauss(0.06))));
      track.addNote({ midi: n.midi, ticks: start, durationTicks: Math.max(PPQ / 16, end - start), velocity });
    }
    for (const [q, down] of p.pedal ?? []) track.addCC({ number: 64, ticks: Math.round(toTicks(q)), value: down ? 1 : 0 });
  }
  return midi.toArray();
}

function run(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.error) throw new Error(`${cmd}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr.slice(-2000)}`);
  return r.stdout + r.stderr;
}

/** The pieces of a corpus: styles, stratified tempos and keys, deterministic from the seed. */
export function corpusSpecs(count: number, seed: number): PieceSpec[] {
  const rng = new Random(seed);
  const styles: Style[] = ['band', 'piano', 'strings', 'jazz', 'waltz', 'compound'];
  // One tempo per (140 / count) BPM slice of 60-200; each goes to the style with the fewest
  // pieces among those whose idiom allows that tempo, most constrained tempos first.
  const tempos = Array.from({ length: count }, (_, i) => round2(60 + (140 * (i + rng.next())) / count));
  const eligible = (bpm: number) => styles.filter((s) => bpm >= TEMPO_RANGE[s][0] && bpm <= TEMPO_RANGE[s][1]);
  const order = rng.shuffle(tempos.map((_, i) => i)).sort((a, b) => eligible(tempos[a]!).length - eligible(tempos[b]!).length);
  const assigned = new Map<number, Style>();
  const counts = new Map<Style, number>(styles.map((s) => [s, 0]));
  for (const i of order) {
    const options = eligible(tempos[i]!);
    const fewest = Math.min(...options.map((s) => counts.get(s)!));
    const style = rng.pick(options.filter((s) => counts.get(s) === fewest));
    counts.set(style, counts.get(style)! + 1);
    assigned.set(i, style);
  }
  // Keys: all 24, each block of 24 pieces in its own random order, so every key appears
  // count/24 times and keys do not follow styles or tempos.
  const pieces = rng.shuffle(tempos.map((_, i) => i));
  const keys: number[] = [];
  while (keys.length < count) keys.push(...rng.shuffle(Array.from({ length: 24 }, (_, k) => k)));
  return pieces.map((tempoIndex, index) => {
    const key = keys[index]!;
    return { index, style: assigned.get(tempoIndex)!, bpm: tempos[tempoIndex]!, tonicPc: key % 12, minor: key >= 12, seed: seed * 100003 + index * 7919 + 17 };
  });
}

function main(): void {
  const { values } = parseArgs({
    options: {
      out: { type: 'string' }, count: { type: 'string', default: '72' }, seed: { type: 'string', default: '1' },
      soundfont: { type: 'string', default: DEFAULT_SOUNDFONT }, 'midi-only': { type: 'boolean', default: false },
    },
  });
  if (!values.out) {
    console.error('usage: compose.js --out DIR [--count 72] [--seed 1] [--soundfont FILE.sf2] [--midi-only]');
    process.exit(2);
  }
  const out = resolve(values.out);
  const count = Number(values.count);
  const seed = Number(values.seed);
  if (!Number.isInteger(count) || count < 1 || !Number.isInteger(seed)) throw new RangeError(`--count and --seed must be integers (got ${values.count}, ${values.seed})`);
  const soundfont = values.soundfont!;
  if (!values['midi-only'] && !existsSync(soundfont)) throw new Error(`no soundfont at ${soundfont}: apt-get install -y fluidsynth fluid-soundfont-gm`);
  const Midi = loadMidi();
  const fluidVersion = values['midi-only'] ? '' : (/FluidSynth runtime version (\S+)/.exec(run('fluidsynth', ['--version']))?.[1] ?? '?');
  mkdirSync(join(out, 'audio'), { recursive: true });
  mkdirSync(join(out, 'midi'), { recursive: true });
  const lines: string[] = [];
  const t0 = performance.now();
  for (const spec of corpusSpecs(count, seed)) {
    const c = compose(spec);
    const name = `sf_${spec.style}_${String(spec.index).padStart(3, '0')}`;
    const midiPath = join(out, 'midi', `${name}.mid`);
    const bytes = writeMidi(Midi, c, new Random(spec.seed ^ 0x5bd1e995));
    writeFileSync(midiPath, bytes);
    // The MIDI stores whole microseconds per quarter note: the label is the tempo that integer means.
    const usPerQuarter = Math.floor(60e6 / c.quarterBpm);
    const truthBpm = round2((60e6 / usPerQuarter) / (spec.style === 'compound' ? 1.5 : 1));
    const key = `${TONIC_SPELLING[spec.tonicPc]} ${spec.minor ? 'minor' : 'major'}`;
    if (values['midi-only']) {
      console.log(`${name}: ${key}, ${truthBpm} BPM, ${c.bars} bars — ${c.description}`);
      continue;
    }
    const wav = join(out, 'audio', `${name}.wav`);
    const flac = join(out, 'audio', `${name}.flac`);
    run('fluidsynth', ['-ni', '-F', wav, '-r', '44100', '-g', '0.5', soundfont, midiPath]);
    // FluidSynth keeps rendering several seconds of near-silence (below -60 dB) after the last
    // note-off; a recording would end with the last chord's ring, so cut 1.5 s after it, faded.
    const endSeconds = (c.bars * c.barQ * 60) / c.quarterBpm + 1.5;
    const fade = `afade=t=out:st=${(endSeconds - 1).toFixed(3)}:d=1`;
    run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-i', wav, '-af', `atrim=0:${endSeconds.toFixed(3)},${fade}`, '-c:a', 'flac', flac]);
    rmSync(wav);
    const probe = JSON.parse(run('ffprobe', ['-v', 'error', '-show_entries', 'stream=sample_rate,channels:format=duration', '-of', 'json', flac])) as {
      streams: { sample_rate: string; channels: number }[]; format: { duration: string };
    };
    const stream = probe.streams[0]!;
    const line = {
      path: `audio/${name}.flac`,
      bpm: truthBpm,
      key,
      hz: 440,
      lufs: null,
      source: `trackscan bench/dev/soundfont/compose.ts (--seed ${seed} --count ${count}, piece ${spec.index}), rendered by FluidSynth ${fluidVersion} with FluidR3_GM.sf2 (-r 44100 -g 0.5)`,
      label_source: 'composer truth: tempo = the quarter-note BPM written to the MIDI (dotted quarter in 6/8); key = the key the piece establishes (it starts and ends on the tonic chord)',
      duration_s: Math.round(Number(probe.format.duration) * 1000) / 1000,
      notes: c.description,
      group: GROUP[spec.style],
      genre: c.genre,
      sample_rate: Number(stream.sample_rate),
      channels: stream.channels,
      md5: createHash('md5').update(readFileSync(flac)).digest('hex'),
    };
    lines.push(JSON.stringify(line));
    console.log(`[${spec.index + 1}/${count}] ${name}: ${key}, ${truthBpm} BPM, ${line.duration_s} s`);
  }
  if (!values['midi-only']) writeFileSync(join(out, 'manifest.jsonl'), lines.join('\n') + '\n');
  console.log(`wrote ${count} pieces to ${out} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(fileURLToPath(import.meta.url))) main();
