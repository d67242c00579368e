/**
 * Cuts one excerpt of every labelled piece of a manifest into a new corpus
 * with its own manifest.jsonl, for the accuracy harness:
 *
 *   node dist/bench/accuracy/excerpts.js MANIFEST --out DIR [--seconds 12] [--seed 1]
 *
 * Why: the generated corpora are whole pieces with a steady tempo and key,
 * and trackscan reads nearly all of them right, so the confidence split of
 * the issue ("the most confident half is right more often than the least
 * confident half") has no miss to rank there. An excerpt of a few seconds
 * taken anywhere in a piece is what real users and ../shared/eval's GTZAN
 * clips give the analyzer: less evidence, no final cadence, an arbitrary
 * start. The labels still hold (the pieces neither modulate nor change
 * tempo), so misses appear and the confidence has something to show.
 *
 * The offset is uniform over the piece, drawn from a hash of the seed and
 * the path, so a piece gets the same excerpt whatever the manifest's order.
 * Pieces shorter than --seconds are skipped; the manifest keeps every field
 * of the source line but path, duration_s, md5, group (suffixed "-xN") and
 * notes, and sets lufs to null (the harness measures its own reference).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

interface Line {
  path: string;
  bpm?: number | null;
  key?: string | null;
  duration_s: number;
  group?: string;
  notes?: string;
  [field: string]: unknown;
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    out: { type: 'string' },
    seconds: { type: 'string', default: '12' },
    seed: { type: 'string', default: '1' },
  },
});
const manifest = positionals[0];
const seconds = Number(values.seconds);
if (!manifest || !values.out || !(seconds > 0)) {
  console.error('usage: excerpts.js MANIFEST --out DIR [--seconds 12] [--seed 1]');
  process.exit(2);
}
const outDir = resolve(values.out);
mkdirSync(join(outDir, 'audio'), { recursive: true });

/** A fraction in [0, 1) from the seed and the piece, stable across runs and orders. */
function fraction(path: string): number {
  return createHash('sha256').update(`${values.seed}:${path}`).digest().readUInt32BE(0) / 2 ** 32;
}

const lines = readFileSync(manifest, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Line);
const out: string[] = [];
let skipped = 0;
for (const line of lines) {
  if (line.bpm == null && line.key == null) continue;
  if (!(line.duration_s >= seconds)) {
    skipped++;
    continue;
  }
  // Whole milliseconds, so the note names the exact cut.
  const offset = Math.floor(fraction(line.path) * (line.duration_s - seconds) * 1000) / 1000;
  const name = `${basename(line.path, extname(line.path))}.x${seconds}.flac`;
  const dest = join(outDir, 'audio', name);
  const ff = spawnSync('ffmpeg', ['-v', 'error', '-y', '-ss', offset.toFixed(3), '-t', String(seconds), '-i',
    resolve(dirname(manifest), line.path), '-map', '0:a:0', '-c:a', 'flac', dest]);
  if (ff.status !== 0) throw new Error(`ffmpeg failed on ${line.path}: ${ff.stderr.toString().trim()}`);
  out.push(JSON.stringify({
    ...line,
    path: `audio/${name}`,
    lufs: null,
    duration_s: seconds,
    group: `${line.group ?? 'all'}-x${seconds}`,
    md5: createHash('md5').update(readFileSync(dest)).digest('hex'),
    notes: `${seconds} s excerpt at ${offset.toFixed(3)} s of ${line.path} (seed ${values.seed}). ${line.notes ?? ''}`.trim(),
  }));
}
writeFileSync(join(outDir, 'manifest.jsonl'), out.join('\n') + '\n');
console.log(`${out.length} excerpts of ${seconds} s in ${outDir}${skipped ? ` (${skipped} pieces shorter, skipped)` : ''}`);
