/**
 * Issue 2's speed and memory figures, on generated music, in one run:
 *
 * per format (MP3, M4A, Opus, FLAC), in ms per minute of audio:
 *   decode    ffmpeg decoding alone (to float PCM, discarded)
 *   loudness  the analyzer with every estimator off, on PCM already decoded
 *   analyze   the whole `trackscan analyze --json` command (Node start included)
 *   ffmpeg    ffmpeg's own EBU R128 meter (-af ebur128) on the same file
 * and each as a ratio to the last, measured in the same run (the machine is
 * shared and noisy: the ratios are what to compare, best of N runs each).
 *
 * memory: peak RSS of `trackscan analyze` on a short and on a 60-minute file.
 *
 *   node dist/bench/analyze-file.bench.js [--minutes 3] [--runs 3] [--long 60]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { Analyzer } from '../src/native/analyzer.js';
import { root } from '../test/helpers/media.js';
import { systemLine } from './system.js';

const { values } = parseArgs({
  options: { minutes: { type: 'string', default: '3' }, runs: { type: 'string', default: '3' }, long: { type: 'string', default: '60' } },
});
const minutes = Number(values.minutes);
const runs = Number(values.runs);
const longMinutes = Number(values.long);
const dir = join(root, 'bench', '.generated');
mkdirSync(dir, { recursive: true });
const cli = join(root, 'bin', 'trackscan.js');

/** Music-like material that is cheap to make: two detuned chords, noise bursts on a beat, stereo. */
function source(seconds: number): string[] {
  return [
    '-f', 'lavfi', '-i', `sine=f=220:r=44100:d=${seconds}`,
    '-f', 'lavfi', '-i', `sine=f=277.2:r=44100:d=${seconds}`,
    '-f', 'lavfi', '-i', `anoisesrc=r=44100:a=0.3:d=${seconds}:seed=7`,
    '-filter_complex',
    '[2]volume=\'if(lt(mod(t,0.5),0.06),1,0.05)\':eval=frame[drums];[0][1][drums]amix=inputs=3:normalize=0,aformat=channel_layouts=stereo,volume=0.5',
  ];
}

const FORMATS: Record<string, string[]> = {
  mp3: ['-c:a', 'libmp3lame', '-b:a', '192k'],
  m4a: ['-c:a', 'aac', '-b:a', '192k', '-movflags', '+faststart'],
  opus: ['-c:a', 'libopus', '-b:a', '160k'],
  flac: ['-c:a', 'flac'],
};

function make(name: string, seconds: number, args: string[]): string {
  const path = join(dir, name);
  if (!existsSync(path)) execFileSync('ffmpeg', ['-y', '-v', 'error', ...source(seconds), ...args, path]);
  return path;
}

function time(fn: () => void): number {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

async function timeAsync(fn: () => Promise<void>): Promise<number> {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

function run(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 2 ** 30 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
}

function decodePcm(path: string): Float32Array {
  const out = execFileSync('ffmpeg', ['-v', 'error', '-i', path, '-f', 'f32le', '-c:a', 'pcm_f32le', '-'], { maxBuffer: 2 ** 31 - 1 });
  return new Float32Array(out.buffer, out.byteOffset, out.byteLength / 4);
}

console.log(`# analyze-file bench\n\n${systemLine()}\n`);
console.log(`Material: ${minutes} min of generated stereo 44.1 kHz music per format; best of ${runs} runs.\n`);
console.log('| format | decode ms/min | loudness ms/min | analyze ms/min | ffmpeg ebur128 ms/min | decode ÷ ebur128 | loudness ÷ ebur128 | analyze ÷ ebur128 |');
console.log('|---|---|---|---|---|---|---|---|');
for (const [format, args] of Object.entries(FORMATS)) {
  const path = make(`music-${minutes}min.${format}`, minutes * 60, args);
  const decode = time(() => run('ffmpeg', ['-v', 'error', '-i', path, '-f', 'f32le', '-c:a', 'pcm_f32le', '-y', '/dev/null']));
  const pcm = decodePcm(path);
  const loudness = await timeAsync(async () => {
    const a = new Analyzer({ sampleRate: 44100, channels: 2, detectTempo: false, detectKey: false, detectTuning: false });
    const chunk = 65536 * 2;
    for (let i = 0; i < pcm.length; i += chunk) await a.push(pcm.subarray(i, i + chunk));
    await a.finish();
  });
  const analyze = time(() => run(process.execPath, [cli, 'analyze', '--json', path]));
  const ebur128 = time(() => run('ffmpeg', ['-v', 'error', '-i', path, '-af', 'ebur128', '-f', 'null', '-']));
  const perMin = (ms: number): string => (ms / minutes).toFixed(0);
  const ratio = (ms: number): string => (ms / ebur128).toFixed(2);
  console.log(`| ${format} | ${perMin(decode)} | ${perMin(loudness)} | ${perMin(analyze)} | ${perMin(ebur128)} | ${ratio(decode)} | ${ratio(loudness)} | ${ratio(analyze)} |`);
}

console.log('\nPeak RSS of `trackscan analyze --json` (GNU time %M; the Node process, ffmpeg runs beside it):\n');
console.log('| file | peak RSS MiB | wall s |');
console.log('|---|---|---|');
for (const [label, m] of [['short', minutes], ['long', longMinutes]] as const) {
  const path = make(`music-${m}min.mp3`, m * 60, FORMATS.mp3!);
  const r = spawnSync('/usr/bin/time', ['-f', '%M %e', process.execPath, cli, 'analyze', '--json', path], { encoding: 'utf8' });
  const [kb, wall] = r.stderr.trim().split('\n').at(-1)!.split(' ');
  console.log(`| ${label}: ${m} min MP3 | ${(Number(kb) / 1024).toFixed(0)} | ${wall} |`);
}
