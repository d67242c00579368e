/**
 * Format detection from the first bytes of a file (magic numbers), never from
 * a name or a declared type. Pure: property-tested in test/unit/sniff.test.ts.
 */

export type AudioFormat = 'mp3' | 'mp4' | 'aac' | 'wav' | 'flac' | 'ogg' | 'webm';

/** What sniff() concluded from the bytes seen so far. */
export type SniffResult =
  | { kind: 'format'; format: AudioFormat }
  | { kind: 'unknown' }
  /** Undecided: more bytes are needed (up to `bytes` in total). */
  | { kind: 'need-more'; bytes: number };

/** Bytes after which an undecided sniff gives up (an ID3 tag may hold cover art). */
export const MAX_SNIFF_BYTES = 1 << 20;

function ascii(buf: Uint8Array, offset: number, text: string): boolean {
  if (buf.length < offset + text.length) return false;
  for (let i = 0; i < text.length; i++) if (buf[offset + i] !== text.charCodeAt(i)) return false;
  return true;
}

/** An MPEG-1/2/2.5 audio frame header (layers I-III) with valid fields. */
function isMpegAudioFrame(buf: Uint8Array, at: number): boolean {
  if (buf.length < at + 4) return false;
  const b1 = buf[at + 1]!;
  const b2 = buf[at + 2]!;
  if (buf[at] !== 0xff || (b1 & 0xe0) !== 0xe0) return false;
  const version = (b1 >> 3) & 3; // 1 is reserved
  const layer = (b1 >> 1) & 3; // 0 is reserved (and means ADTS)
  const bitrate = b2 >> 4; // 15 is invalid
  const rate = (b2 >> 2) & 3; // 3 is reserved
  return version !== 1 && layer !== 0 && bitrate !== 15 && rate !== 3;
}

/** An ADTS (raw AAC) header: 12 sync bits, layer 00, valid sampling index. */
function isAdtsFrame(buf: Uint8Array, at: number): boolean {
  if (buf.length < at + 7) return false;
  const b1 = buf[at + 1]!;
  const b2 = buf[at + 2]!;
  return buf[at] === 0xff && (b1 & 0xf6) === 0xf0 && ((b2 >> 2) & 0x0f) < 13;
}

/** Size of an ID3v2 tag starting at `at` (header + body + footer), or 0. */
function id3Size(buf: Uint8Array, at: number): number {
  if (!ascii(buf, at, 'ID3') || buf.length < at + 10) return 0;
  const flags = buf[at + 5]!;
  const size = ((buf[at + 6]! & 0x7f) << 21) | ((buf[at + 7]! & 0x7f) << 14) | ((buf[at + 8]! & 0x7f) << 7) | (buf[at + 9]! & 0x7f);
  return 10 + size + (flags & 0x10 ? 10 : 0);
}

/** Detects the container or stream format of an audio file from its first bytes. */
export function sniff(buf: Uint8Array): SniffResult {
  if (buf.length < 12) return { kind: 'need-more', bytes: 12 };
  if ((ascii(buf, 0, 'RIFF') || ascii(buf, 0, 'RF64') || ascii(buf, 0, 'BW64')) && ascii(buf, 8, 'WAVE')) {
    return { kind: 'format', format: 'wav' };
  }
  if (ascii(buf, 0, 'fLaC')) return { kind: 'format', format: 'flac' };
  if (ascii(buf, 0, 'OggS')) return { kind: 'format', format: 'ogg' };
  if (buf[0] === 0x1a && buf[1] === 0x45 && buf[2] === 0xdf && buf[3] === 0xa3) return { kind: 'format', format: 'webm' };
  // ISO BMFF (MP4, M4A) starts with a box: size, then 'ftyp' (or, in old
  // QuickTime files, straight with 'moov'/'mdat'/'free'/'wide').
  if (['ftyp', 'moov', 'mdat', 'free', 'wide', 'skip'].some((box) => ascii(buf, 4, box))) {
    return { kind: 'format', format: 'mp4' };
  }
  const tag = id3Size(buf, 0);
  if (tag > 0) {
    // A tagged file: what follows the tag says what it is (usually MP3,
    // sometimes ADTS AAC or FLAC).
    if (buf.length < tag + 7) return tag + 7 <= MAX_SNIFF_BYTES ? { kind: 'need-more', bytes: tag + 7 } : { kind: 'format', format: 'mp3' };
    if (ascii(buf, tag, 'fLaC')) return { kind: 'format', format: 'flac' };
    if (isAdtsFrame(buf, tag)) return { kind: 'format', format: 'aac' };
    return { kind: 'format', format: 'mp3' };
  }
  if (isAdtsFrame(buf, 0)) return { kind: 'format', format: 'aac' };
  if (isMpegAudioFrame(buf, 0)) return { kind: 'format', format: 'mp3' };
  return { kind: 'unknown' };
}

/**
 * For MP4: whether the index ('moov') comes before the media data ('mdat').
 * 'moov-first' can be decoded from a pipe; 'mdat-first' needs the whole file.
 */
export type Mp4Layout = 'moov-first' | 'mdat-first' | 'need-more' | 'invalid';

export function mp4Layout(buf: Uint8Array): Mp4Layout {
  let at = 0;
  while (true) {
    if (buf.length < at + 16) return 'need-more';
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    let size = view.getUint32(at);
    const type = String.fromCharCode(buf[at + 4]!, buf[at + 5]!, buf[at + 6]!, buf[at + 7]!);
    if (type === 'moov') return 'moov-first';
    if (type === 'mdat') return 'mdat-first';
    if (size === 1) {
      const big = view.getBigUint64(at + 8);
      if (big > BigInt(Number.MAX_SAFE_INTEGER)) return 'invalid';
      size = Number(big);
    }
    if (size < 8) return 'invalid'; // 0 ("to the end") before moov/mdat is not a file we can use
    at += size;
    if (at > MAX_SNIFF_BYTES) return 'invalid';
  }
}
