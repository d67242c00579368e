/**
 * Receiving an upload: multipart/form-data parsed by busboy, the one file
 * part streamed straight to the consumer (the analyzer) while it is hashed
 * with SHA-256 and counted. Nothing is written to disk and the file is
 * never held whole in memory. The text fields (detect switches) must come
 * before the file part: the analysis starts as the first file byte arrives,
 * and what to compute has to be known by then.
 */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';

import busboy from 'busboy';
import type { Request, Response } from 'express';

import type { AnalysisSwitches } from '../analysis/types.js';
import { AppError } from '../errors.js';
import { meter } from './metered.js';

export interface UploadOptions {
  maxBytes: number;
  /** Longest pause inside the file part (while the analyzer waits for data). */
  idleTimeoutMs?: number;
  defaults: AnalysisSwitches;
}

/** The file part, as the consumer sees it. */
export interface UploadedFile {
  /** The file's bytes, counted (413 past the limit). */
  stream: AsyncIterable<Buffer>;
  /** Aborts when the upload fails or the client goes away. */
  signal: AbortSignal;
  switches: AnalysisSwitches;
  filename: string | undefined;
  /** Resolves to the SHA-256 (hex) once the last byte has passed; never rejects. */
  digest: Promise<string | null>;
}

const FIELDS: Record<string, keyof AnalysisSwitches> = {
  detect_bpm: 'detectBpm',
  detect_key: 'detectKey',
  detect_hz: 'detectHz',
  details: 'details',
};

/** Room for the multipart framing and fields around a file of the largest size. */
const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

/** Parses a multipart boolean field ("true"/"false"). */
export function parseBooleanField(name: string, value: string): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new AppError('invalid_request', `The field ${name} must be "true" or "false", got "${value.slice(0, 20)}"`);
}

/**
 * Parses the upload of `req` and hands its file part to `consume`; resolves
 * to what `consume` returns once the whole request has been read. Rejects
 * with 400 (malformed multipart, missing/extra parts, bad fields), 413 (too
 * big, detected at the byte that crosses the limit), or `consume`'s error.
 */
export async function receiveUpload<T>(req: Request, res: Response, options: UploadOptions, consume: (file: UploadedFile) => Promise<T>): Promise<T> {
  const type = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data\s*;/i.test(type) || !/boundary=/i.test(type)) {
    throw new AppError('invalid_request', 'Send the audio as multipart/form-data with a boundary, one file part named "file"');
  }
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > options.maxBytes + MULTIPART_OVERHEAD_BYTES) {
    throw new AppError('payload_too_large', `The upload is ${declared} bytes; the limit is ${options.maxBytes} bytes`);
  }

  const controller = new AbortController();
  let failure: unknown;
  const fail = (err: unknown): void => {
    failure ??= err;
    controller.abort(failure);
  };
  // 'close' before the answer is complete means the client went away.
  const onClose = (): void => {
    if (!res.writableFinished) fail(new AppError('invalid_request', 'The client closed the connection'));
  };
  res.once('close', onClose);

  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      limits: { fileSize: options.maxBytes + 1, files: 1, fields: 8, parts: 9, fieldSize: 256, fieldNameSize: 100, headerPairs: 20 },
    });
  } catch (err) {
    res.off('close', onClose);
    throw new AppError('invalid_request', `The multipart body cannot be parsed: ${(err as Error).message}`);
  }

  const switches: AnalysisSwitches = { ...options.defaults };
  // Set inside the parser's callbacks, read after parsing.
  const part: { consuming: Promise<T> | null } = { consuming: null };

  const parsed = new Promise<void>((resolve) => {
    parser.on('field', (name, value, info) => {
      const key = FIELDS[name];
      try {
        if (!key) throw new AppError('invalid_request', `Unknown field "${name.slice(0, 40)}"; the fields are ${Object.keys(FIELDS).join(', ')} and file`);
        if (info.valueTruncated) throw new AppError('invalid_request', `The field ${name} is too long`);
        if (part.consuming) throw new AppError('invalid_request', `The field ${name} comes after the file part; send text fields first`);
        switches[key] = parseBooleanField(name, value);
      } catch (err) {
        fail(err);
      }
    });
    parser.on('file', (name, stream: Readable, info) => {
      if (failure !== undefined || part.consuming) {
        stream.resume();
        if (!failure) fail(new AppError('invalid_request', 'Send exactly one file part'));
        return;
      }
      if (name !== 'file') {
        stream.resume();
        fail(new AppError('invalid_request', `The file part must be named "file", not "${name.slice(0, 40)}"`));
        return;
      }
      stream.once('limit', () => stream.destroy(new AppError('payload_too_large', `The upload is larger than the limit of ${options.maxBytes} bytes`)));
      const hash = createHash('sha256');
      let resolveDigest!: (hex: string | null) => void;
      const digest = new Promise<string | null>((r) => (resolveDigest = r));
      const metered = meter(stream, {
        maxBytes: options.maxBytes,
        what: 'The upload',
        hash,
        controller,
        ...(options.idleTimeoutMs ? { idleTimeoutMs: options.idleTimeoutMs } : {}),
        onEnd: (complete) => resolveDigest(complete ? hash.digest('hex') : null),
      });
      const consuming = consume({ stream: metered.stream, signal: controller.signal, switches: { ...switches }, filename: info.filename, digest });
      // Whatever the consumer did not read is drained, so the parser can finish;
      // a consumer that fails stops the whole upload.
      part.consuming = consuming;
      consuming.then(
        () => {
          if (!stream.destroyed) stream.resume();
          resolve();
        },
        (err: unknown) => {
          fail(err);
          resolve();
        },
      );
    });
    parser.on('filesLimit', () => fail(new AppError('invalid_request', 'Send exactly one file part')));
    parser.on('fieldsLimit', () => fail(new AppError('invalid_request', 'Too many fields')));
    parser.on('partsLimit', () => fail(new AppError('invalid_request', 'Too many parts')));
    parser.on('error', (err: Error) => {
      fail(new AppError('invalid_request', `The multipart body is malformed: ${err.message}`));
      resolve();
    });
    parser.on('close', () => resolve());
    controller.signal.addEventListener('abort', () => resolve(), { once: true });
  });

  req.pipe(parser);
  try {
    await parsed;
    if (failure !== undefined) {
      await part.consuming?.catch(() => undefined);
      throw failure;
    }
    if (!part.consuming) throw new AppError('invalid_request', 'The upload has no file part named "file"');
    try {
      return await part.consuming;
    } catch (err) {
      throw failure ?? err;
    }
  } finally {
    res.off('close', onClose);
    req.unpipe(parser);
  }
}
