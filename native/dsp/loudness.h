// Loudness per EBU R128 / ITU-R BS.1770-4: a thin RAII wrapper over
// libebur128 plus the true-peak meter of true_peak.h.
//
// libebur128 runs in histogram mode (constant memory and O(1) queries however
// long the file), with modes I (integrated), LRA (loudness range, EBU Tech
// 3342), S (short-term, for the one-per-second curve) and SAMPLE_PEAK. True
// peak is not libebur128's: see true_peak.h for why.
//
// Units: integrated LUFS, loudness range LU, true peak dBTP, sample peak dBFS,
// short-term curve LUFS. Values that do not exist (digital silence, a file
// shorter than one gating block) are NaN here and null in JavaScript.
// Channels are mapped to BS.1770 weights from a WAVE channel mask when one is
// known (LFE excluded, surround and side channels weighted +1.5 dB), else by
// libebur128's default order (L, R, C, LFE, Ls, Rs).
#ifndef TRACKSCAN_DSP_LOUDNESS_H_
#define TRACKSCAN_DSP_LOUDNESS_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <ebur128.h>

#include "status.h"
#include "true_peak.h"

namespace trackscan::dsp {

struct LoudnessSummary {
  double integrated_lufs;             // NaN on digital silence
  double loudness_range_lu;           // NaN when integrated is NaN
  double true_peak_dbtp;              // NaN on digital silence
  double sample_peak_dbfs;            // NaN on digital silence
  std::vector<float> short_term_lufs;  // one per kLoudnessCurveIntervalS; NaN below -70 LUFS
};

class Loudness {
 public:
  // channel_mask: WAVE_FORMAT_EXTENSIBLE dwChannelMask, 0 when unknown.
  static Result<Loudness> Create(double sample_rate_hz, int channels, std::uint32_t channel_mask);

  // Feeds interleaved frames (all values finite).
  Status Process(const float* interleaved, std::size_t frames);

  LoudnessSummary Summary() const;

 private:
  struct StateDeleter {
    void operator()(ebur128_state* st) const;
  };
  Loudness(ebur128_state* st, TruePeak true_peak, std::size_t frames_per_point);

  std::unique_ptr<ebur128_state, StateDeleter> state_;
  TruePeak true_peak_;
  std::size_t frames_per_point_;           // frames between two curve points
  std::size_t frames_since_point_ = 0;     // frames fed since the last point
  std::vector<float> short_term_lufs_;     // the curve so far
};

}  // namespace trackscan::dsp

#endif  // TRACKSCAN_DSP_LOUDNESS_H_
