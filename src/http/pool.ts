/**
 * A bounded pool for analyses: at most `concurrency` run at once and at most
 * `queueLength` wait; one more is refused at once with 503 overloaded, so a
 * burst costs the server a queue slot, not memory or ffmpeg processes.
 * Only fresh analyses go through the pool: cache hits, usage and health are
 * answered outside it and never wait behind an analysis.
 */
import { AppError } from '../errors.js';

export interface PoolOptions {
  concurrency: number;
  queueLength: number;
}

export interface PoolStats {
  active: number;
  queued: number;
  concurrency: number;
  queueLength: number;
}

interface Waiter {
  start: () => void;
  fail: (err: unknown) => void;
}

export class AnalysisPool {
  readonly concurrency: number;
  readonly queueLength: number;
  private active = 0;
  private readonly queue: Waiter[] = [];
  /** Every running job's controller, so shutdown can end them. */
  private readonly running = new Set<AbortController>();
  /** Smoothed duration of a job (seconds), for Retry-After. */
  private averageSeconds = 5;
  private closed = false;

  constructor(options: PoolOptions) {
    if (!Number.isInteger(options.concurrency) || options.concurrency < 1) throw new RangeError(`concurrency must be a whole number >= 1, got ${options.concurrency}`);
    if (!Number.isInteger(options.queueLength) || options.queueLength < 0) throw new RangeError(`queueLength must be a whole number >= 0, got ${options.queueLength}`);
    this.concurrency = options.concurrency;
    this.queueLength = options.queueLength;
  }

  stats(): PoolStats {
    return { active: this.active, queued: this.queue.length, concurrency: this.concurrency, queueLength: this.queueLength };
  }

  /** True when a new job would be refused. */
  get saturated(): boolean {
    return this.active >= this.concurrency && this.queue.length >= this.queueLength;
  }

  /** A guess of when a slot frees up, for Retry-After. */
  private retryAfter(): number {
    return Math.max(1, Math.ceil((this.averageSeconds * (this.queue.length + 1)) / this.concurrency));
  }

  /**
   * Runs `job` when a slot is free. Rejects with 503 overloaded when the
   * queue is full, and with `signal`'s reason if it aborts while queued.
   * The job receives a signal that aborts when `signal` does or the pool closes.
   */
  async run<T>(job: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.closed) throw new AppError('unavailable', 'The server is shutting down', { retryAfterSeconds: 5 });
    signal?.throwIfAborted();
    if (this.active >= this.concurrency) {
      if (this.queue.length >= this.queueLength) {
        throw new AppError('overloaded', `All ${this.concurrency} analysis slots are busy and ${this.queue.length} analyses are waiting; try again later`, {
          retryAfterSeconds: this.retryAfter(),
        });
      }
      await new Promise<void>((resolve, reject) => {
        const waiter: Waiter = {
          start: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
          fail: (err) => {
            signal?.removeEventListener('abort', onAbort);
            reject(err);
          },
        };
        const onAbort = (): void => {
          const at = this.queue.indexOf(waiter);
          if (at >= 0) this.queue.splice(at, 1);
          reject(signal!.reason);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        this.queue.push(waiter);
      });
    } else {
      this.active += 1;
    }
    // The slot is ours (a finishing job hands its slot over without decrementing).
    const controller = new AbortController();
    const onAbort = (): void => controller.abort(signal!.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    this.running.add(controller);
    const started = performance.now();
    try {
      return await job(controller.signal);
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.running.delete(controller);
      const seconds = (performance.now() - started) / 1000;
      this.averageSeconds = 0.8 * this.averageSeconds + 0.2 * seconds;
      const next = this.queue.shift();
      if (next) next.start();
      else this.active -= 1;
    }
  }

  /** Refuses new jobs, fails queued ones and aborts running ones. */
  close(reason: unknown = new AppError('unavailable', 'The server is shutting down', { retryAfterSeconds: 5 })): void {
    this.closed = true;
    for (const waiter of this.queue.splice(0)) waiter.fail(reason);
    for (const controller of this.running) controller.abort(reason);
  }
}
