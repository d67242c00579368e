/**
 * A byte stream on its way into the analyzer, counted (and optionally
 * hashed) as it passes. Going over the byte limit fails the stream at that
 * very chunk; any failure of the source is also recorded and aborts the
 * analysis at once, so ffmpeg is ended instead of finishing on a partial
 * input, and the caller can report the source's error rather than whatever
 * the decoder made of the cut.
 */
import type { Hash } from 'node:crypto';

import { AppError } from '../errors.js';

export interface MeterOptions {
  maxBytes: number;
  /** Text for the 413 detail, e.g. "The upload". */
  what: string;
  hash?: Hash;
  /** Aborted with the source's error when the source fails. */
  controller: AbortController;
  /** Called once when the stream stops: true if the source ended normally. */
  onEnd?: (complete: boolean) => void;
  /**
   * Longest wait for the source's next chunk once it is asked for; longer is
   * `idleError()`. Time the consumer spends on a chunk does not count, so a
   * slow analysis never trips it, only a sender that stalls.
   */
  idleTimeoutMs?: number;
  idleError?: () => Error;
}

/**
 * The next item of `iterator`; `error()` after `ms` without one, or the
 * abort reason as soon as `signal` aborts (so an aborted stream stops
 * waiting for a sender that may never send again).
 */
async function nextWithin<T>(iterator: AsyncIterator<T>, ms: number, error: () => Error, signal: AbortSignal): Promise<IteratorResult<T>> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    signal.throwIfAborted();
    return await Promise.race([
      iterator.next(),
      new Promise<never>((_resolve, reject) => {
        // unref: a pending upload must not keep a stopping process alive.
        timer = setTimeout(() => reject(error()), ms).unref();
        onAbort = () => reject(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}

export interface Meter {
  /** The bytes, counted; throws 413 payload_too_large past maxBytes. */
  readonly stream: AsyncGenerator<Buffer, void, undefined>;
  /** Bytes that went through so far. */
  readonly bytes: number;
  /** True once the source ended normally. */
  readonly complete: boolean;
  /** The source's failure, if it failed. */
  readonly failure: unknown;
}

/** Wraps `source` in a Meter. */
export function meter(source: AsyncIterable<Buffer | Uint8Array>, options: MeterOptions): Meter {
  const state = { bytes: 0, complete: false, failure: undefined as unknown };
  async function* stream(): AsyncGenerator<Buffer, void, undefined> {
    const iterator = source[Symbol.asyncIterator]();
    const idle = options.idleTimeoutMs;
    const idleError = options.idleError ?? (() => new AppError('invalid_request', `${options.what} stalled: no data for ${idle} ms`));
    try {
      while (true) {
        const next = idle ? await nextWithin(iterator, idle, idleError, options.controller.signal) : await iterator.next();
        if (next.done) break;
        const piece = next.value;
        const chunk = Buffer.isBuffer(piece) ? piece : Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
        state.bytes += chunk.length;
        if (state.bytes > options.maxBytes) {
          throw new AppError('payload_too_large', `${options.what} is larger than the limit of ${options.maxBytes} bytes`);
        }
        options.hash?.update(chunk);
        yield chunk;
      }
      state.complete = true;
    } catch (err) {
      state.failure ??= err;
      options.controller.abort(state.failure);
      throw err;
    } finally {
      // Also reached when the consumer stops early (return()): the bytes are then incomplete.
      if (!state.complete) void iterator.return?.()?.catch?.(() => undefined);
      options.onEnd?.(state.complete);
    }
  }
  const generator = stream();
  return {
    stream: generator,
    get bytes() {
      return state.bytes;
    },
    get complete() {
      return state.complete;
    },
    get failure() {
      return state.failure;
    },
  };
}
