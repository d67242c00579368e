/**
 * Test audio made at run time with the real ffmpeg (never committed), and a
 * way to run the real `trackscan` command.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** Repository root (this file is dist/test/helpers/media.js once compiled). */
export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const cli = join(root, 'bin', 'trackscan.js');

export async function makeTempDir(t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'trackscan-test-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Runs ffmpeg with the given arguments (after -y -v error). */
export async function ffmpeg(...args: string[]): Promise<void> {
  await execFileAsync('ffmpeg', ['-y', '-hide_banner', '-v', 'error', ...args]);
}

/** The output-side arguments that make each accepted format from any input. */
export const ENCODINGS: Record<string, string[]> = {
  'mp3': ['-c:a', 'libmp3lame', '-b:a', '192k', '-f', 'mp3'],
  'm4a': ['-c:a', 'aac', '-b:a', '192k', '-movflags', '+faststart', '-f', 'mp4'],
  'm4a-moov-last': ['-c:a', 'aac', '-b:a', '192k', '-f', 'mp4'],
  'aac': ['-c:a', 'aac', '-b:a', '192k', '-f', 'adts'],
  'wav': ['-c:a', 'pcm_s16le', '-f', 'wav'],
  'wav-float': ['-c:a', 'pcm_f32le', '-f', 'wav'],
  'flac': ['-c:a', 'flac', '-f', 'flac'],
  'ogg': ['-c:a', 'libvorbis', '-q:a', '6', '-f', 'ogg'],
  'ogg-opus': ['-c:a', 'libopus', '-b:a', '160k', '-f', 'ogg'],
  'opus': ['-c:a', 'libopus', '-b:a', '160k', '-f', 'opus'],
  'webm': ['-c:a', 'libopus', '-b:a', '160k', '-f', 'webm'],
};

/** A short piece of "music" made by ffmpeg's own sources: a chord plus a click pattern, stereo. */
export function musicSource(seconds: number, rate = 44100): string[] {
  return [
    '-f', 'lavfi', '-i',
    `aevalsrc='0.2*sin(2*PI*220*t)+0.15*sin(2*PI*277.18*t)+0.12*sin(2*PI*329.63*t)+0.5*exp(-40*mod(t,0.5))*sin(2*PI*60*t)|0.2*sin(2*PI*220*t+1)+0.1*sin(2*PI*440*t)+0.4*exp(-40*mod(t+0.25,0.5))*sin(2*PI*80*t)':s=${rate}:d=${seconds}`,
  ];
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `trackscan ...args`, optionally with bytes on standard input. */
export function runCli(args: string[], input?: Buffer): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code: code ?? -1, stdout, stderr }));
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  });
}

/** ffmpeg processes that are children of this process (none may be left behind). */
export async function childFfmpegCount(): Promise<number> {
  const { stdout } = await execFileAsync('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)]).catch(() => ({ stdout: '' }));
  return stdout.split('\n').filter((l) => /\bffmpeg\b/.test(l)).length;
}

/** Integrated loudness as ffmpeg's own EBU R128 meter measures it, at full precision. */
export async function ffmpegIntegratedLufs(file: string): Promise<number> {
  const { stderr } = await execFileAsync(
    'ffmpeg',
    ['-hide_banner', '-nostats', '-i', file, '-map', '0:a:0', '-af', 'ebur128=metadata=1,ametadata=print:key=lavfi.r128.I', '-f', 'null', '-'],
    { maxBuffer: 256 * 1024 * 1024 },
  );
  const values = [...stderr.matchAll(/lavfi\.r128\.I=(-?[\d.]+|-inf|nan)/g)].map((m) => m[1]);
  const last = values.at(-1);
  if (last === undefined) throw new Error(`no ebur128 output for ${file}`);
  return Number(last);
}
