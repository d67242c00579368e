/**
 * Decoding with ffmpeg as a child process: bytes stream in on stdin and
 * interleaved float32 PCM at the source's own rate and channel count streams
 * out (as a WAV stream, whose header says the rate, channels and layout).
 *
 * - The format is detected from the bytes (sniff.ts); anything else is 415.
 * - An MP4/M4A whose index ('moov') comes after its media ('mdat') cannot be
 *   decoded from a pipe: such an input is spooled to a private temporary
 *   file, up to `maxSpoolBytes`, and ffmpeg reads the file. Every other input
 *   streams through without being stored.
 * - ffmpeg errors (a truncated, damaged or unplayable file) become 422
 *   undecodable_audio: numbers computed on part of a file would describe a
 *   different piece of audio than the user sent. A WAV shorter than its
 *   header declares counts as truncated too.
 * - The child is always ended and reaped: on success, error and abort alike.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import { AppError } from '../errors.js';
import { MAX_SNIFF_BYTES, mp4Layout, sniff, type AudioFormat } from './sniff.js';
import { parseWavHeader, type PcmFormat } from './wav-header.js';

export interface DecoderOptions {
  signal?: AbortSignal;
  /** Largest MP4 with its index at the end that is spooled to disk (bytes). */
  maxSpoolBytes?: number;
  /** Frames per yielded chunk (fewer at the end). */
  chunkFrames?: number;
  /** The ffmpeg executable. */
  ffmpegPath?: string;
}

export const DEFAULT_MAX_SPOOL_BYTES = 512 * 1024 * 1024;
const DEFAULT_CHUNK_FRAMES = 1 << 16;
/** ffmpeg's log is kept up to this size: enough for every error line that matters. */
const MAX_LOG_BYTES = 64 * 1024;
const NATIVE_MAX_CHANNELS = 8;
const NATIVE_MIN_RATE = 8000;
const NATIVE_MAX_RATE = 384000;

export interface DecodedStream extends PcmFormat {
  format: AudioFormat;
  /** Codec name as ffmpeg says it (e.g. "mp3", "aac", "opus"), when known. */
  codec: string | null;
  /** Interleaved float32 frames; throws AppError if decoding fails midway. */
  frames(): AsyncGenerator<Float32Array, void, undefined>;
  /** Ends ffmpeg and removes any spool file; safe to call more than once. */
  close(): Promise<void>;
}

type Ffmpeg = ChildProcessByStdio<Writable, Readable, Readable>;

/** Reads from `iterator` until the format is known. Returns the bytes read and the format. */
async function readHead(iterator: AsyncIterator<Buffer>): Promise<{ head: Buffer; format: AudioFormat | null; ended: boolean }> {
  const chunks: Buffer[] = [];
  let length = 0;
  let needed = 12;
  while (true) {
    while (length < needed) {
      const next = await iterator.next();
      if (next.done) {
        const head = Buffer.concat(chunks);
        const result = sniff(head);
        return { head, format: result.kind === 'format' ? result.format : null, ended: true };
      }
      const chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value as Uint8Array);
      chunks.push(chunk);
      length += chunk.length;
    }
    const head = Buffer.concat(chunks);
    const result = sniff(head);
    if (result.kind === 'format') return { head, format: result.format, ended: false };
    if (result.kind === 'unknown' || result.bytes > MAX_SNIFF_BYTES) return { head, format: null, ended: false };
    needed = result.bytes;
  }
}

/** For MP4, reads on until the order of 'moov' and 'mdat' is known. */
async function readMp4Layout(head: Buffer, iterator: AsyncIterator<Buffer>): Promise<{ head: Buffer; mdatFirst: boolean }> {
  const chunks = [head];
  let all = head;
  while (true) {
    const layout = mp4Layout(all);
    if (layout === 'moov-first') return { head: all, mdatFirst: false };
    if (layout === 'mdat-first') return { head: all, mdatFirst: true };
    if (layout === 'invalid') throw new AppError('undecodable_audio', 'The MP4 file has no usable structure (no moov or mdat box)');
    const next = await iterator.next();
    if (next.done) throw new AppError('undecodable_audio', 'The MP4 file ends before its media data or index');
    chunks.push(next.value);
    all = Buffer.concat(chunks);
  }
}

async function* prepend(head: Buffer, iterator: AsyncIterator<Buffer>): AsyncGenerator<Buffer> {
  if (head.length > 0) yield head;
  while (true) {
    const next = await iterator.next();
    if (next.done) return;
    yield next.value;
  }
}

/** The WAV 'data' size a RIFF header declares, if it declares one. */
function declaredWavDataEnd(head: Buffer): number | null {
  if (head.toString('latin1', 0, 4) !== 'RIFF' || head.toString('latin1', 8, 12) !== 'WAVE') return null;
  let at = 12;
  while (at + 8 <= head.length) {
    const id = head.toString('latin1', at, at + 4);
    const size = head.readUInt32LE(at + 4);
    if (id === 'data') return size === 0 || size === 0xffffffff ? null : at + 8 + size;
    at += 8 + size + (size & 1);
  }
  return null;
}

function ffmpegArgs(input: string): string[] {
  return [
    '-hide_banner', '-nostdin', '-nostats', '-loglevel', 'level+info',
    '-i', input,
    // The first audio stream, whatever comes before it (cover art, video).
    '-map', '0:a:0', '-vn', '-sn', '-dn',
    '-map_metadata', '-1', '-fflags', '+bitexact', '-flags:a', '+bitexact',
    '-c:a', 'pcm_f32le', '-f', 'wav', 'pipe:1',
  ];
}

/** Turns ffmpeg's log into the user-facing reason, without paths or addresses. */
function describeFailure(log: string): AppError {
  if (/matches no streams|does not contain any stream/.test(log)) {
    return new AppError('undecodable_audio', 'The file holds no audio stream');
  }
  const errors = log
    .split('\n')
    .filter((line) => /\[(error|fatal)\]/.test(line))
    .map((line) => line.replace(/^\[[^\]]*@ 0x[0-9a-f]+\] /, '').replace(/\[(error|fatal)\] /, '').replace(/pipe:0|\/\S+/g, 'input').trim())
    .filter((line, i, all) => line && all.indexOf(line) === i);
  const reason = errors.slice(0, 2).join('; ') || 'the decoder failed';
  return new AppError('undecodable_audio', `The audio could not be decoded: it is truncated or damaged (${reason})`);
}

/**
 * ffmpeg ended by a signal we did not send. A crash (SIGSEGV and kin) on a
 * file is that file's doing: 422. Anything else (the OOM killer, an operator)
 * is the service's trouble, not the file's: 503, worth retrying.
 */
function killedError(signal: NodeJS.Signals): AppError {
  if (['SIGSEGV', 'SIGBUS', 'SIGILL', 'SIGFPE', 'SIGABRT'].includes(signal)) {
    return new AppError('undecodable_audio', `The decoder crashed on this file (${signal})`);
  }
  return new AppError('unavailable', `The decoder was stopped (${signal}); try again`, { retryAfterSeconds: 5 });
}

function codecFromLog(log: string): string | null {
  const input = log.split(/Output #0/)[0] ?? '';
  return /Stream #\d+:\d+[^:]*: Audio: ([\w-]+)/.exec(input)?.[1] ?? null;
}

/**
 * Starts decoding `source`. Resolves once the output format is known (or
 * rejects with AppError 415/422), then `frames()` streams the PCM.
 */
export async function openDecoder(source: AsyncIterable<Buffer> | Readable, options: DecoderOptions = {}): Promise<DecodedStream> {
  const signal = options.signal;
  signal?.throwIfAborted();
  const iterator = (source as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  const sniffed = await readHead(iterator);
  let head = sniffed.head;
  if (head.length === 0) throw new AppError('unsupported_media_type', 'The file is empty');
  if (!sniffed.format) {
    throw new AppError(
      'unsupported_media_type',
      'Not a supported audio format (accepted: MP3, M4A/MP4, AAC, WAV, FLAC, OGG Vorbis/Opus, WebM, Opus)',
    );
  }
  const format = sniffed.format;

  let spoolDir: string | null = null;
  let input = 'pipe:0';
  if (format === 'mp4') {
    const layout = await readMp4Layout(head, iterator);
    head = layout.head;
    if (layout.mdatFirst) {
      spoolDir = await mkdtemp(join(tmpdir(), 'trackscan-'));
      input = join(spoolDir, 'input.mp4');
      try {
        await spool(prepend(head, iterator), input, options.maxSpoolBytes ?? DEFAULT_MAX_SPOOL_BYTES, signal);
      } catch (err) {
        await rm(spoolDir, { recursive: true, force: true });
        throw err;
      }
    }
  }

  const child: Ffmpeg = spawn(options.ffmpegPath ?? 'ffmpeg', ffmpegArgs(input), { stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
    child.once('error', (error) => resolve({ code: null, signal: null, error }));
    child.once('close', (code, sig) => resolve({ code, signal: sig }));
  });
  let log = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text: string) => {
    if (log.length < MAX_LOG_BYTES) log += text;
  });

  let closed = false;
  const close = async (): Promise<void> => {
    if (!closed) {
      closed = true;
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      child.stdout.destroy();
      child.stdin.destroy();
    }
    await exited;
    if (spoolDir) await rm(spoolDir, { recursive: true, force: true });
  };
  const onAbort = (): void => void close();
  signal?.addEventListener('abort', onAbort, { once: true });

  // Feed stdin (unless ffmpeg reads the spool file). ffmpeg may stop reading
  // early (an error, or it has what it needs): EPIPE is then expected, and
  // the exit status tells what happened.
  let inputBytes = head.length;
  const declaredEnd = format === 'wav' ? declaredWavDataEnd(head) : null;
  let feedError: unknown = null;
  const fed =
    input === 'pipe:0'
      ? pipeline(
          Readable.from(
            (async function* counted() {
              yield head;
              while (true) {
                const next = await iterator.next();
                if (next.done) return;
                inputBytes += next.value.length;
                yield next.value;
              }
            })(),
          ),
          child.stdin,
        ).catch((err: unknown) => {
          if ((err as NodeJS.ErrnoException).code !== 'EPIPE' && (err as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') feedError = err;
        })
      : (child.stdin.end(), Promise.resolve());

  const stdout = child.stdout[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let pending = Buffer.alloc(0);
  let pcm: PcmFormat | null = null;
  try {
    while (!pcm) {
      const next = await stdout.next();
      if (next.done) break;
      pending = Buffer.concat([pending, next.value]);
      const parsed = parseWavHeader(pending);
      if (parsed.kind === 'invalid') throw new AppError('internal_error', `Unexpected decoder output: ${parsed.reason}`);
      if (parsed.kind === 'header') {
        pcm = parsed.format;
        pending = pending.subarray(parsed.dataOffset);
      }
    }
    if (!pcm) {
      await fed;
      const status = await exited;
      signal?.throwIfAborted();
      if (status.error) throw new AppError('unavailable', `The decoder (ffmpeg) could not be started: ${status.error.message}`);
      if (feedError) throw feedError;
      if (status.signal) throw killedError(status.signal);
      throw describeFailure(log);
    }
    if (pcm.channels < 1 || pcm.channels > NATIVE_MAX_CHANNELS) {
      throw new AppError('undecodable_audio', `The audio has ${pcm.channels} channels; at most ${NATIVE_MAX_CHANNELS} are supported`);
    }
    if (pcm.sampleRate < NATIVE_MIN_RATE || pcm.sampleRate > NATIVE_MAX_RATE) {
      throw new AppError('undecodable_audio', `The audio's sample rate ${pcm.sampleRate} Hz is outside ${NATIVE_MIN_RATE}-${NATIVE_MAX_RATE} Hz`);
    }
  } catch (err) {
    signal?.removeEventListener('abort', onAbort);
    await close();
    if (signal?.aborted) throw signal.reason;
    throw err;
  }

  const format_: PcmFormat = pcm;
  const frameBytes = format_.channels * 4;
  const chunkBytes = (options.chunkFrames ?? DEFAULT_CHUNK_FRAMES) * frameBytes;

  async function* frames(): AsyncGenerator<Float32Array, void, undefined> {
    try {
      const out = Buffer.alloc(chunkBytes);
      let fill = 0;
      let decodedBytes = 0;
      const take = (bytes: Buffer): Float32Array[] => {
        const ready: Float32Array[] = [];
        let at = 0;
        while (at < bytes.length) {
          const n = Math.min(bytes.length - at, chunkBytes - fill);
          bytes.copy(out, fill, at, at + n);
          fill += n;
          at += n;
          if (fill === chunkBytes) {
            ready.push(new Float32Array(out.buffer.slice(out.byteOffset, out.byteOffset + fill)));
            fill = 0;
          }
        }
        return ready;
      };
      for (const chunk of take(pending)) yield chunk;
      decodedBytes += pending.length;
      while (true) {
        const next = await stdout.next();
        if (next.done) break;
        decodedBytes += next.value.length;
        for (const chunk of take(next.value)) yield chunk;
      }
      await fed;
      const status = await exited;
      signal?.throwIfAborted();
      if (feedError) throw feedError;
      if (status.signal) throw killedError(status.signal);
      if (status.code !== 0 || /\[(error|fatal)\]/.test(log)) throw describeFailure(log);
      if (declaredEnd !== null && inputBytes < declaredEnd) {
        throw new AppError('undecodable_audio', `The WAV file is truncated: its header declares ${declaredEnd} bytes, ${inputBytes} arrived`);
      }
      const whole = fill - (fill % frameBytes);
      if (decodedBytes < frameBytes) throw new AppError('undecodable_audio', 'The file decodes to no audio at all');
      if (whole > 0) yield new Float32Array(out.buffer.slice(out.byteOffset, out.byteOffset + whole));
    } catch (err) {
      // Killing ffmpeg on abort breaks its pipes; the abort is the cause.
      if (signal?.aborted) throw signal.reason;
      throw err;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      await close();
    }
  }

  return {
    format,
    // Read late: ffmpeg's log may trail its first output bytes.
    get codec() {
      return codecFromLog(log);
    },
    ...format_,
    frames,
    close,
  };
}

async function spool(data: AsyncIterable<Buffer>, path: string, maxBytes: number, signal: AbortSignal | undefined): Promise<void> {
  let total = 0;
  await pipeline(
    Readable.from(data),
    async function* limit(chunks: AsyncIterable<Buffer>) {
      for await (const chunk of chunks) {
        total += chunk.length;
        if (total > maxBytes) {
          throw new AppError('payload_too_large', `An MP4 with its index at the end must be read whole; this one exceeds ${maxBytes} bytes`);
        }
        yield chunk;
      }
    },
    createWriteStream(path, { mode: 0o600 }),
    signal ? { signal } : {},
  );
}

