/**
 * The streaming analyzer: validates options, keeps one native operation in
 * flight at a time, and rethrows native failures with the caller's stack.
 */
import { AnalysisError } from '../errors.js';
import { binding, type NativeAnalyzerOptions, type NativeResult, type RawAnalyzer } from './binding.js';

export type { NativeResult } from './binding.js';

/** Limits of the native engine (native/dsp/params.h). */
export const MIN_SAMPLE_RATE = 8000;
export const MAX_SAMPLE_RATE = 384000;
export const MIN_CHANNELS = 1;
export const MAX_CHANNELS = 8;

export class AnalyzerOptionError extends RangeError {
  readonly code = 'ERR_ANALYZER_INVALID_OPTION';
}

function checkInteger(name: string, value: unknown, min: number, max: number): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new AnalyzerOptionError(
      `Expected ${name} to be an integer between ${min} and ${max} but received ${typeof value === 'number' ? value : typeof value}`,
    );
  }
}

/** The analysis engine version (SPEC.md analyzer_version). */
export function analyzerVersion(): string {
  return binding.version();
}

export class Analyzer {
  readonly sampleRate: number;
  readonly channels: number;
  #native: RawAnalyzer;
  #pending: Promise<unknown> = Promise.resolve();
  #closed = false;

  constructor(options: NativeAnalyzerOptions) {
    checkInteger('sampleRate', options.sampleRate, MIN_SAMPLE_RATE, MAX_SAMPLE_RATE);
    checkInteger('channels', options.channels, MIN_CHANNELS, MAX_CHANNELS);
    if (options.channelMask !== undefined) checkInteger('channelMask', options.channelMask, 0, 0xffffffff);
    this.sampleRate = options.sampleRate;
    this.channels = options.channels;
    this.#native = new binding.Analyzer(options);
  }

  /** Feeds interleaved frames; resolves when the engine has taken them in. */
  push(frames: Float32Array): Promise<void> {
    if (!(frames instanceof Float32Array)) {
      return Promise.reject(new TypeError(`Expected a Float32Array but received ${typeof frames}`));
    }
    if (frames.length % this.channels !== 0) {
      return Promise.reject(
        new AnalyzerOptionError(`Expected a multiple of ${this.channels} samples but received ${frames.length}`),
      );
    }
    return this.#enqueue(() => this.#native.push(frames));
  }

  /** Computes the estimates; the analyzer is closed afterwards. */
  finish(): Promise<NativeResult> {
    return this.#enqueue(() => this.#native.finish());
  }

  /** Frees native memory now (also while an operation is in flight). */
  close(): void {
    this.#closed = true;
    this.#native.close();
  }

  #enqueue<T>(op: () => Promise<T>): Promise<T> {
    const stack = new Error();
    const run = async (): Promise<T> => {
      if (this.#closed) throw closedError();
      try {
        return await op();
      } catch (err) {
        throw withCallerStack(err, stack);
      }
    };
    const next = this.#pending.then(run, run);
    this.#pending = next.catch(() => undefined);
    return next;
  }
}

function closedError(): AnalysisError {
  return new AnalysisError('Analyzer: already finished or closed', 'ERR_ANALYZER_CLOSED');
}

function withCallerStack(err: unknown, stack: Error): unknown {
  if (err instanceof Error && stack.stack) {
    err.stack = `${err.name}: ${err.message}\n${stack.stack.split('\n').slice(1).join('\n')}`;
  }
  return err;
}
