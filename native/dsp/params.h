// Every tunable constant of the analysis engine, declared once, with its unit,
// its valid range and the reason for its value. Estimators read them from here;
// nothing numeric that changes results is defined anywhere else.
//
// Changing any value here can change results: bump kAnalyzerVersion.
#ifndef TRACKSCAN_DSP_PARAMS_H_
#define TRACKSCAN_DSP_PARAMS_H_

#include <cstddef>

namespace trackscan::dsp::params {

// "MAJOR.MINOR.PATCH" of the analysis engine (SPEC.md analyzer_version). The
// result cache keys on it, so a change that can move any number must bump it.
inline constexpr const char* kAnalyzerVersion = "0.1.0";

// ---- Input limits -------------------------------------------------------
// Hz. 8 kHz (telephone audio) to 384 kHz (the highest rate ffmpeg's PCM
// codecs commonly produce); outside that the filters below are not designed.
inline constexpr double kMinSampleRateHz = 8000.0;
inline constexpr double kMaxSampleRateHz = 384000.0;
// Channels. SPEC.md accepts 1 to 8 (7.1 is the widest common layout).
inline constexpr int kMinChannels = 1;
inline constexpr int kMaxChannels = 8;

// ---- Loudness (EBU R128 / ITU-R BS.1770-4) --------------------------------
// Seconds between two points of the short-term loudness curve in `details`.
// One a second is what SPEC.md asks for; short-term loudness is a 3 s window.
inline constexpr double kLoudnessCurveIntervalS = 1.0;

// ---- True peak (BS.1770-4 Annex 2) ----------------------------------------
// Taps of the windowed-sinc interpolation filter. 49 (odd) puts a tap at the
// centre so phase 0 reproduces the input samples exactly, which makes the
// true peak never lower than the sample peak; it is also the length
// libebur128 uses, so the two agree to a few hundredths of a dB.
inline constexpr int kTruePeakTaps = 49;
// Oversampling factor by input rate: BS.1770 asks for at least 192 kHz
// after oversampling, so 4x below 96 kHz, 2x below 192 kHz, 1x above.
inline constexpr int TruePeakOversampling(double rate_hz) {
  return rate_hz < 96000.0 ? 4 : rate_hz < 192000.0 ? 2 : 1;
}
// Samples per channel tested (and, if needed, interpolated) together. The
// skip test (true_peak.h) is per block, so small blocks skip more of a loud,
// limited master; below ~64 the per-block overhead wins. Measured with
// native/tools/loudness_bench on a loud master (+2.9 dBTP): 32 -> 0.027,
// 64 -> 0.027, 256 -> 0.039, 2048 -> 0.059 s per minute. Range 32..8192.
inline constexpr std::size_t kTruePeakBlockSamples = 64;

// ---- Shared front end -----------------------------------------------------
// Hz. The rate every tempo/key/tuning estimator works at, after downmix.
// 11025 Hz keeps content up to 5.5 kHz: all chroma-relevant partials and the
// bulk of onset energy, at a quarter of the FFT cost of 44.1 kHz.
inline constexpr double kAnalysisRateHz = 11025.0;
// speexdsp resampler quality, 0..10. 4 is its own "default" (about 80 dB
// stop-band attenuation): aliasing stays far below what chroma or onset
// detection can see, at a fraction of the cost of quality 10.
inline constexpr int kResamplerQuality = 4;

// ---- Tempo (native/dsp/tempo.cc) ------------------------------------------
// (tempo constants go here)

// ---- Key (native/dsp/key.cc) ----------------------------------------------
// (key constants go here)

// ---- Tuning (native/dsp/tuning.cc) ----------------------------------------
// (tuning constants go here)

}  // namespace trackscan::dsp::params

#endif  // TRACKSCAN_DSP_PARAMS_H_
