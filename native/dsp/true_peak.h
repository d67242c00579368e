// True-peak meter: the maximum absolute value of the signal after
// oversampling, per ITU-R BS.1770-4 Annex 2, in linear full-scale units.
//
// Why not libebur128's EBUR128_MODE_TRUE_PEAK: measured here it costs about
// three times the rest of libebur128's work (bench/RESULTS.md), because it
// interpolates every sample. This meter computes exactly the same maximum but
// skips blocks that provably cannot raise it: an interpolated value is a sum
// of at most `taps / factor` input samples times the filter coefficients of
// one phase, so it is bounded by max|input| * G, where G is the largest sum of
// absolute coefficients over the phases. A block whose inputs (with the
// filter's history) satisfy max|x| * G <= the peak found so far is skipped.
// Music reaches its peak early and stays below it most of the time, so most
// blocks are skipped; the answer is identical to interpolating everything.
//
// Parameters (native/dsp/params.h): kTruePeakTaps (49, Hann-windowed sinc),
// TruePeakOversampling(rate) (4x below 96 kHz, 2x below 192 kHz, else 1x),
// kTruePeakBlockSamples. Valid rates and channel counts: see params.h.
#ifndef TRACKSCAN_DSP_TRUE_PEAK_H_
#define TRACKSCAN_DSP_TRUE_PEAK_H_

#include <cstddef>
#include <vector>

#include "status.h"

namespace trackscan::dsp {

class TruePeak {
 public:
  static Result<TruePeak> Create(double sample_rate_hz, int channels);

  // Feeds interleaved frames (all values finite).
  void Process(const float* interleaved, std::size_t frames);

  // Largest true peak over all channels so far, linear (1.0 = 0 dBTP).
  double MaxLinear() const;

 private:
  TruePeak(int channels, int factor);
  void ProcessChannelBlock(int channel);

  int channels_;
  int factor_;                      // oversampling factor (1, 2 or 4)
  int taps_per_phase_;              // ceil(taps / factor)
  std::vector<float> coeffs_;       // [phase][tap], taps_per_phase_ per phase
  double bound_gain_;               // G: max over phases of sum |coeff|
  std::vector<double> peak_;        // per channel, linear
  std::vector<float> work_;         // history (taps_per_phase_-1) + block
  std::vector<std::vector<float>> history_;  // per channel, last inputs
  std::vector<float> acc_;          // one phase's outputs for one block
  std::size_t block_fill_ = 0;      // samples of the current block in work_
  std::vector<std::vector<float>> block_;    // per channel, pending block
};

}  // namespace trackscan::dsp

#endif  // TRACKSCAN_DSP_TRUE_PEAK_H_
