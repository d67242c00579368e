/**
 * The accuracy harness (issue 3, item 9): trackscan and Essentia side by side
 * on a manifest in the format of ../shared/eval/manifest.jsonl.
 *
 *   node dist/bench/accuracy/run.js MANIFEST.jsonl [--out predictions.jsonl]
 *        [--no-essentia] [--no-multifeature] [--no-ebur128] [--limit N]
 *   node dist/bench/accuracy/run.js --from predictions.jsonl   (tables again, from a saved run)
 *   node dist/bench/accuracy/run.js MANIFEST.jsonl --essentia-from saved.jsonl   (re-run trackscan only)
 *
 * For each recording, in one process:
 * 1. decode the file ONCE with the product's decoder (src/decode/decoder.ts:
 *    ffmpeg to interleaved float32 at the file's own rate and channels);
 * 2. trackscan: the product's Analyzer (src/native/analyzer.ts) fed those
 *    chunks, timed; then again with tempo, key and tuning off, to know what
 *    loudness alone costs;
 * 3. Essentia (essentia.js, see essentia.ts) on the same PCM, downmixed in JS
 *    (mean of the channels) and resampled to 44.1 kHz by ffmpeg's soxr
 *    resampler (a pipe of raw float32; skipped when the file is at 44.1 kHz).
 *    That preparation is not counted in Essentia's time; trackscan's time
 *    includes its own downmix and resampling;
 * 4. the loudness reference: ffmpeg's ebur128 filter on the file (it prints
 *    integrated loudness to 0.1 LU).
 *
 * Times are CPU seconds of the whole process (user + system, so the addon's
 * worker thread is counted), per minute of audio; the machine is shared, so
 * CPU time is steadier than wall time. Metrics: metrics.ts (the definitions
 * of ../shared/eval/README.md); a missing estimate counts as wrong.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, createReadStream, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { keyName } from '../../src/analysis/key-names.js';
import { openDecoder } from '../../src/decode/decoder.js';
import { Analyzer, analyzerVersion } from '../../src/native/analyzer.js';
import { systemLine } from '../system.js';
import { ESSENTIA_RATE, loadEssentia, runEssentia } from './essentia.js';
import { defaultRows, report, type Prediction } from './report.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

interface ManifestEntry {
  path: string;
  bpm?: number | null;
  key?: string | null;
  hz?: number | null;
  group?: string;
  genre?: string | null;
  duration_s?: number;
}

async function decode(path: string): Promise<{ chunks: Float32Array[]; sampleRate: number; channels: number; frames: number }> {
  const decoded = await openDecoder(createReadStream(path));
  const chunks: Float32Array[] = [];
  let samples = 0;
  for await (const chunk of decoded.frames()) {
    chunks.push(chunk);
    samples += chunk.length;
  }
  return { chunks, sampleRate: decoded.sampleRate, channels: decoded.channels, frames: samples / decoded.channels };
}

async function analyze(chunks: Float32Array[], sampleRate: number, channels: number, estimators: boolean) {
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  const analyzer = new Analyzer({ sampleRate, channels, detectTempo: estimators, detectKey: estimators, detectTuning: estimators });
  try {
    for (const chunk of chunks) await analyzer.push(chunk);
    const result = await analyzer.finish();
    const cpu = process.cpuUsage(cpu0);
    return { result, cpuSeconds: (cpu.user + cpu.system) / 1e6, wallSeconds: (performance.now() - wall0) / 1000 };
  } finally {
    analyzer.close();
  }
}

/** Mean of the channels, then ffmpeg's soxr resampler to 44.1 kHz. */
function monoAt44k(chunks: Float32Array[], sampleRate: number, channels: number, frames: number): Float32Array {
  const mono = new Float32Array(frames);
  let at = 0;
  for (const chunk of chunks) {
    for (let i = 0; i < chunk.length; i += channels) {
      let sum = 0;
      for (let c = 0; c < channels; c++) sum += chunk[i + c]!;
      mono[at++] = sum / channels;
    }
  }
  if (sampleRate === ESSENTIA_RATE) return mono;
  const r = spawnSync(
    'ffmpeg',
    ['-hide_banner', '-v', 'error', '-f', 'f32le', '-ar', String(sampleRate), '-ac', '1', '-i', 'pipe:0',
      '-af', `aresample=${ESSENTIA_RATE}:resampler=soxr:precision=28`, '-f', 'f32le', 'pipe:1'],
    { input: Buffer.from(mono.buffer, mono.byteOffset, mono.byteLength), maxBuffer: 1 << 30 },
  );
  if (r.status !== 0) throw new Error(`ffmpeg resampling failed: ${r.stderr.toString()}`);
  const out = r.stdout;
  return new Float32Array(out.buffer.slice(out.byteOffset, out.byteOffset + out.byteLength - (out.byteLength % 4)));
}

/** Integrated loudness by ffmpeg's ebur128 filter, or null. */
function ffmpegLufs(path: string): number | null {
  const r = spawnSync('ffmpeg', ['-hide_banner', '-nostats', '-i', path, '-filter_complex', 'ebur128', '-f', 'null', '-'], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  const summary = r.stderr.split('Summary:').pop() ?? '';
  const match = /I:\s+(-?[\d.]+|-inf)\s+LUFS/.exec(summary);
  return match && match[1] !== '-inf' ? Number(match[1]) : null;
}

/** The commit, whether native/ differs from it, and when the loaded addon was built: the addon may hold uncommitted work. */
function checkoutState(): string {
  const git = (...args: string[]): string => spawnSync('git', ['-C', repoRoot, ...args], { encoding: 'utf8' }).stdout?.trim() ?? '';
  const commit = git('rev-parse', '--short', 'HEAD') || 'unknown commit';
  const dirty = git('status', '--porcelain', '--', 'native') ? ' (native/ has uncommitted changes)' : '';
  // The file binding.ts loads (node-gyp-build prefers build/Release, else falls back to prebuilds/,
  // which may be an old build: say which, and when it was built).
  const addon = process.env.TRACKSCAN_ADDON
    ? resolve(process.env.TRACKSCAN_ADDON)
    : (createRequire(import.meta.url)('node-gyp-build') as { path(dir: string): string }).path(repoRoot);
  const built = existsSync(addon) ? `${relative(repoRoot, addon)} built ${statSync(addon).mtime.toISOString().slice(0, 16).replace('T', ' ')} UTC` : addon;
  return `commit ${commit}${dirty}, addon ${built}`;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      'out': { type: 'string' },
      'no-essentia': { type: 'boolean', default: false },
      'no-multifeature': { type: 'boolean', default: false },
      'no-ebur128': { type: 'boolean', default: false },
      'limit': { type: 'string' },
      'from': { type: 'string' },
      'essentia-from': { type: 'string' },
    },
  });
  if (values.from) {
    const saved = readFileSync(values.from, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Prediction);
    const hasEssentia = saved.some((p) => p.essentia);
    console.log(`# trackscan accuracy harness: tables from ${values.from} (${saved.length} recordings)\n`);
    console.log(report(defaultRows(hasEssentia, saved.some((p) => p.essentia?.multifeature)), saved));
    console.log('\n' + LEGEND);
    return;
  }
  const manifestPath = positionals[0];
  if (!manifestPath) {
    console.error('usage: node dist/bench/accuracy/run.js MANIFEST.jsonl [--out predictions.jsonl] [--no-essentia] [--no-multifeature] [--no-ebur128] [--limit N]');
    process.exit(2);
  }
  const withEssentia = !values['no-essentia'];
  const withMultifeature = withEssentia && !values['no-multifeature'];
  const base = dirname(resolve(manifestPath));
  let entries = readFileSync(manifestPath, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as ManifestEntry);
  if (values.limit) entries = entries.slice(0, Number(values.limit));
  // Essentia does not change between runs: --essentia-from reuses its answers, times and the
  // ebur128 references of a saved run for the same files (same bytes), so a repeat run only
  // re-runs trackscan. Speed ratios then compare CPU times of two runs.
  const reuse = new Map<string, Prediction>();
  if (values['essentia-from']) {
    for (const line of readFileSync(values['essentia-from'], 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const saved = JSON.parse(line) as Prediction;
      if (saved.essentia) reuse.set(saved.path, saved);
    }
  }
  const essentia = withEssentia && reuse.size === 0 ? loadEssentia(repoRoot) : null;

  const header = [
    `# trackscan accuracy harness, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    '',
    `- machine: ${systemLine()}`,
    `- trackscan analyzer ${analyzerVersion()} at ${checkoutState()}; ` +
      (reuse.size
        ? `Essentia (essentia.js) answers, CPU times and ebur128 references REUSED from ${values['essentia-from']} (same files, checked by SHA-256 where recorded), not re-run`
        : essentia ? `Essentia ${essentia.version} via essentia.js (WASM), in this run` : 'Essentia not run'),
    `- manifest: ${manifestPath} (${entries.length} recordings)`,
  ].join('\n');
  console.log(header + '\n');
  if (values.out) writeFileSync(values.out, '');

  const predictions: Prediction[] = [];
  for (const [i, entry] of entries.entries()) {
    const path = resolve(base, entry.path);
    const p: Prediction = {
      path: entry.path,
      group: entry.group ?? 'all',
      genre: entry.genre ?? null,
      durationSeconds: entry.duration_s ?? 0,
      label: { bpm: entry.bpm ?? null, key: entry.key ?? null, hz: entry.hz ?? null },
      referenceLufs: null,
    };
    try {
      p.fileSha256 = createHash('sha256').update(readFileSync(path)).digest('hex');
      const pcm = await decode(path);
      p.durationSeconds = pcm.frames / pcm.sampleRate;
      p.sampleRate = pcm.sampleRate;
      p.channels = pcm.channels;
      const full = await analyze(pcm.chunks, pcm.sampleRate, pcm.channels, true);
      const loudnessOnly = await analyze(pcm.chunks, pcm.sampleRate, pcm.channels, false);
      const r = full.result;
      p.trackscan = {
        bpm: r.tempo?.bpm ?? null,
        bpmConfidence: r.tempo?.confidence ?? null,
        key: r.key ? keyName(r.key.tonic, r.key.minor) : null,
        keyConfidence: r.key?.confidence ?? null,
        hz: r.tuning?.referenceHz ?? null,
        hzConfidence: r.tuning?.confidence ?? null,
        integratedLufs: r.loudness.integratedLufs,
        cpuSeconds: full.cpuSeconds,
        wallSeconds: full.wallSeconds,
        loudnessOnlyCpuSeconds: loudnessOnly.cpuSeconds,
        warnings: r.warnings,
      };
      const saved = reuse.get(entry.path);
      if (reuse.size && saved && (!saved.fileSha256 || saved.fileSha256 === p.fileSha256)) {
        p.essentia = saved.essentia;
        p.referenceLufs = saved.referenceLufs;
      } else if (reuse.size && withEssentia) {
        throw new Error(`--essentia-from has no Essentia answers for this file (${saved ? 'its bytes differ' : 'not in that run'})`);
      }
      if (essentia) {
        const t0 = performance.now();
        const mono = monoAt44k(pcm.chunks, pcm.sampleRate, pcm.channels, pcm.frames);
        const prepareSeconds = (performance.now() - t0) / 1000;
        const e = runEssentia(essentia, mono, { multifeature: withMultifeature });
        p.essentia = {
          prepareSeconds,
          degara: { bpm: e.degara.bpm, cpuSeconds: e.degara.cpuSeconds },
          multifeature: e.multifeature,
          keys: e.keys,
          tuning: { hz: e.tuning.hz, cpuSeconds: e.tuning.cpuSeconds },
        };
      }
      if (!values['no-ebur128'] && p.referenceLufs === null) p.referenceLufs = ffmpegLufs(path);
    } catch (err) {
      p.error = err instanceof Error ? err.message : String(err);
    }
    predictions.push(p);
    if (values.out) appendFileSync(values.out, JSON.stringify(p) + '\n');
    const t = p.trackscan;
    const e = p.essentia;
    console.error(
      `[${i + 1}/${entries.length}] ${entry.path}: label ${p.label.bpm ?? '-'} BPM, ${p.label.key ?? '-'}, ${p.label.hz ?? '-'} Hz | ` +
        (p.error
          ? `ERROR ${p.error}`
          : `trackscan ${t?.bpm?.toFixed(1) ?? 'null'} BPM, ${t?.key ?? 'null'}, ${t?.hz?.toFixed(1) ?? 'null'} Hz, ${t?.cpuSeconds.toFixed(2)} s` +
            (e ? ` | essentia ${e.degara.bpm.toFixed(1)}/${e.multifeature?.bpm.toFixed(1) ?? '-'} BPM, ${e.keys.bgate?.key}, ${e.tuning.hz.toFixed(1)} Hz` : '')),
    );
  }

  const multifeature = withMultifeature && (reuse.size === 0 || predictions.some((p) => p.essentia?.multifeature));
  console.log(report(defaultRows(withEssentia, multifeature), predictions));
  console.log('\n' + LEGEND);
}

const LEGEND =
    'Acc1: within 4 % of the label; Acc2: also at 2, 1/2, 3 or 1/3 times it. Key: MIREX weights 1 / 0.5 fifth / 0.3 relative / 0.2 parallel. ' +
      'Tuning error wrapped to ±50 cents (A4 is only defined modulo a semitone); no estimate counts as 50 cents. ' +
      'Loudness: |integrated − ffmpeg ebur128|. Conf. Δ: accuracy (tempo Acc1, key exact) of the most confident half minus the least confident half, in points; ' +
      'no answer ranks lowest; — when all confidences are equal (degara\'s is always 0). ' +
      'CPU s per min: process CPU seconds per minute of audio, median over recordings; trackscan includes its loudness, true peak, downmix and resampling; ' +
      'Essentia excludes the downmix and the resampling to 44.1 kHz. Essentia ÷ trackscan: median over recordings of the per-recording ratio.';

await main();
