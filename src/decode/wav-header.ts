/**
 * Parser for the WAV header ffmpeg writes on its stdout (pcm_f32le, RIFF or
 * WAVE_FORMAT_EXTENSIBLE): it carries the decoded rate, channel count and
 * channel mask, so nothing has to be scraped from ffmpeg's log.
 */

export interface PcmFormat {
  sampleRate: number;
  channels: number;
  /** WAVE_FORMAT_EXTENSIBLE dwChannelMask; 0 when not given. */
  channelMask: number;
}

export type WavHeaderResult =
  | { kind: 'header'; format: PcmFormat; dataOffset: number }
  | { kind: 'need-more' }
  | { kind: 'invalid'; reason: string };

const WAVE_FORMAT_IEEE_FLOAT = 3;
const WAVE_FORMAT_EXTENSIBLE = 0xfffe;
/** Chunks before 'data' are small in ffmpeg's output; more means garbage. */
const MAX_HEADER_BYTES = 1 << 16;

function tag(buf: Buffer, at: number): string {
  return buf.toString('latin1', at, at + 4);
}

/** Parses a float32 WAV header from the start of `buf`. */
export function parseWavHeader(buf: Buffer): WavHeaderResult {
  if (buf.length < 12) return { kind: 'need-more' };
  if (!['RIFF', 'RF64'].includes(tag(buf, 0)) || tag(buf, 8) !== 'WAVE') {
    return { kind: 'invalid', reason: 'decoder output is not WAV' };
  }
  let at = 12;
  let format: PcmFormat | undefined;
  while (true) {
    if (at > MAX_HEADER_BYTES) return { kind: 'invalid', reason: 'WAV header too long' };
    if (buf.length < at + 8) return { kind: 'need-more' };
    const id = tag(buf, at);
    const size = buf.readUInt32LE(at + 4);
    if (id === 'data') {
      if (!format) return { kind: 'invalid', reason: "WAV 'data' before 'fmt '" };
      return { kind: 'header', format, dataOffset: at + 8 };
    }
    if (buf.length < at + 8 + size) return { kind: 'need-more' };
    if (id === 'fmt ') {
      const formatTag = buf.readUInt16LE(at + 8);
      const channels = buf.readUInt16LE(at + 10);
      const sampleRate = buf.readUInt32LE(at + 12);
      const bits = buf.readUInt16LE(at + 22);
      let channelMask = 0;
      let isFloat = formatTag === WAVE_FORMAT_IEEE_FLOAT;
      if (formatTag === WAVE_FORMAT_EXTENSIBLE && size >= 40) {
        channelMask = buf.readUInt32LE(at + 28);
        isFloat = buf.readUInt16LE(at + 32) === WAVE_FORMAT_IEEE_FLOAT;
      }
      if (!isFloat || bits !== 32) return { kind: 'invalid', reason: 'decoder output is not float32' };
      format = { sampleRate, channels, channelMask };
    }
    at += 8 + size + (size & 1);
  }
}
