/**
 * EBU Tech 3341 and Tech 3342 conformance through the whole product path:
 * a file on disk -> ffmpeg -> analyzer, for WAV and for lossy formats.
 *
 * WAV (lossless): integrated within +-0.1 LU and LRA within +-1 LU, the
 * standard's own tolerances. Lossy codecs change the signal: a perceptual
 * codec adds quantisation noise and may move a pure tone's level: LAME at
 * 192 kbit/s lowers a -23 dBFS 1 kHz tone by 0.26 dB (ffmpeg's own meter
 * reads the same -23.26 LUFS, so that is the signal, not the meter), at
 * 320 kbit/s by less than 0.01 dB. The lossy cases therefore use 320 kbit/s
 * MP3 and 160 kbit/s Opus, with +-0.2 LU integrated (room for the codec's
 * noise, far below audibility) and the same +-1 LU LRA.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';

import { ENCODINGS, ffmpeg, makeTempDir, runCli } from '../helpers/media.js';

/** A stereo 1 kHz sine sequence: [level dBFS, seconds]... as an ffmpeg aevalsrc expression. */
function sequence(parts: [number, number][]): string[] {
  let t0 = 0;
  const terms = parts.map(([db, seconds]) => {
    const term = `between(t,${t0},${t0 + seconds - 1e-9})*${10 ** (db / 20)}`;
    t0 += seconds;
    return term;
  });
  const expr = `(${terms.join('+')})*sin(2*PI*1000*t)`;
  return ['-f', 'lavfi', '-i', `aevalsrc='${expr}|${expr}':s=48000:d=${t0}`];
}

const CASES: { name: string; parts: [number, number][]; lufs?: number; lra?: number }[] = [
  { name: '3341 case 1', parts: [[-23, 20]], lufs: -23 },
  { name: '3341 case 2', parts: [[-33, 20]], lufs: -33 },
  { name: '3341 case 3', parts: [[-36, 10], [-23, 60], [-36, 10]], lufs: -23 },
  { name: '3341 case 4', parts: [[-72, 10], [-36, 10], [-23, 60], [-36, 10], [-72, 10]], lufs: -23 },
  { name: '3341 case 5', parts: [[-26, 20], [-20, 20.1], [-26, 20]], lufs: -23 },
  { name: '3342 case 1', parts: [[-20, 20], [-30, 20]], lra: 10 },
  { name: '3342 case 2', parts: [[-20, 20], [-15, 20]], lra: 5 },
  { name: '3342 case 3', parts: [[-40, 20], [-20, 20]], lra: 20 },
  { name: '3342 case 4', parts: [[-50, 20], [-35, 20], [-20, 20], [-35, 20], [-50, 20]], lra: 15 },
];

const FORMATS: { name: string; args: string[]; lufsTolerance: number }[] = [
  { name: 'wav-float', args: ENCODINGS['wav-float']!, lufsTolerance: 0.1 },
  { name: 'flac', args: ENCODINGS.flac!, lufsTolerance: 0.1 },
  { name: 'opus', args: ENCODINGS.opus!, lufsTolerance: 0.2 },
  { name: 'mp3', args: ['-c:a', 'libmp3lame', '-b:a', '320k', '-f', 'mp3'], lufsTolerance: 0.2 },
];

for (const format of FORMATS) {
  test(`EBU Tech 3341/3342 sine cases in ${format.name}`, async (t) => {
    const dir = await makeTempDir(t);
    const files = await Promise.all(
      CASES.map(async (c, i) => {
        const path = join(dir, `case${i}.${format.name}`);
        await ffmpeg(...sequence(c.parts), ...format.args, path);
        return path;
      }),
    );
    const r = await runCli(['analyze', '--json', '--no-bpm', '--no-key', '--no-hz', ...files]);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { analysis: { lufs: number; loudness_detail: { loudness_range: number } } }[];
    CASES.forEach((c, i) => {
      const a = out[i]!.analysis;
      if (c.lufs !== undefined) assert.ok(Math.abs(a.lufs - c.lufs) <= format.lufsTolerance, `${c.name}: ${a.lufs} LUFS`);
      if (c.lra !== undefined) assert.ok(Math.abs(a.loudness_detail.loudness_range - c.lra) <= 1, `${c.name}: ${a.loudness_detail.loudness_range} LU`);
    });
  });
}
