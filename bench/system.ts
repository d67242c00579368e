/** What every bench prints first: the machine, so figures can be compared. */
import { execFileSync } from 'node:child_process';
import { cpus, totalmem } from 'node:os';

export function systemLine(): string {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  let ffmpegVersion = 'unknown';
  try {
    ffmpegVersion = /ffmpeg version (\S+)/.exec(execFileSync('ffmpeg', ['-version'], { encoding: 'utf8' }))?.[1] ?? ffmpegVersion;
  } catch {
    // reported as unknown
  }
  return `${new Date().toISOString().slice(0, 10)}, ${cpu}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ffmpeg ${ffmpegVersion}`;
}
