/** Test audio for the HTTP tests, made by the real ffmpeg into a temporary directory. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { ENCODINGS, ffmpeg, makeTempDir, musicSource } from '../../helpers/media.js';

/** Encodes `seconds` of the shared test music as `encoding` (a key of ENCODINGS) and returns the bytes. */
export async function makeAudio(
  t: { after: (fn: () => Promise<void>) => void },
  encoding: keyof typeof ENCODINGS | string,
  seconds = 3,
  rate = 44100,
): Promise<Buffer> {
  const dir = await makeTempDir(t);
  const out = join(dir, `music.${encoding}`);
  const args = ENCODINGS[encoding];
  if (!args) throw new Error(`unknown encoding ${encoding}`);
  await ffmpeg(...musicSource(seconds, rate), ...args, out);
  return readFile(out);
}
