/**
 * The use case: bytes of an audio file in, SPEC.md's analysis object out.
 * bytes -> ffmpeg (decoder.ts) -> float PCM -> native Analyzer -> result.
 * Each decoded chunk is awaited into the analyzer before the next is read,
 * so a slow analyzer slows the reader instead of piling up PCM.
 */
import type { Readable } from 'node:stream';

import { openDecoder } from '../decode/decoder.js';
import { AppError } from '../errors.js';
import { Analyzer, analyzerVersion } from '../native/analyzer.js';
import { presentAnalysis } from './present.js';
import type { AnalysisObject, AnalysisSwitches } from './types.js';

export interface AnalyzeOptions extends AnalysisSwitches {
  signal?: AbortSignal;
  /** Longest audio accepted (seconds); longer is 413 payload_too_large. */
  maxDurationSeconds?: number;
  /** Largest MP4-with-index-at-the-end spooled to disk (bytes). */
  maxSpoolBytes?: number;
}

/** All switches on, no details: SPEC.md's defaults. */
export const DEFAULT_SWITCHES: AnalysisSwitches = { detectBpm: true, detectKey: true, detectHz: true, details: false };

export async function analyzeStream(source: Readable | AsyncIterable<Buffer>, options: AnalyzeOptions): Promise<AnalysisObject> {
  const started = performance.now();
  const decoded = await openDecoder(source, {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.maxSpoolBytes !== undefined ? { maxSpoolBytes: options.maxSpoolBytes } : {}),
  });
  let analyzer: Analyzer | undefined;
  try {
    analyzer = new Analyzer({
      sampleRate: decoded.sampleRate,
      channels: decoded.channels,
      channelMask: decoded.channelMask,
      detectTempo: options.detectBpm,
      detectKey: options.detectKey,
      detectTuning: options.detectHz,
    });
    const maxFrames = (options.maxDurationSeconds ?? Infinity) * decoded.sampleRate;
    let frames = 0;
    for await (const chunk of decoded.frames()) {
      frames += chunk.length / decoded.channels;
      if (frames > maxFrames) {
        throw new AppError('payload_too_large', `The audio is longer than the limit of ${options.maxDurationSeconds} seconds`);
      }
      await analyzer.push(chunk);
    }
    const result = await analyzer.finish();
    const seconds = (performance.now() - started) / 1000;
    return presentAnalysis(
      result,
      { sampleRate: decoded.sampleRate, channels: decoded.channels, codec: decoded.codec, format: decoded.format },
      options,
      seconds,
      analyzerVersion(),
    );
  } finally {
    analyzer?.close();
    await decoded.close();
  }
}
