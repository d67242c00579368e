// Tuning estimator: mono samples at params::kAnalysisRateHz in; the
// reference frequency of A4 and its confidence out.
//
// PLACEHOLDER until issue 3: Estimate() always answers "no tuning".
#ifndef TRACKSCAN_DSP_TUNING_H_
#define TRACKSCAN_DSP_TUNING_H_

#include <cstddef>
#include <optional>

#include "status.h"

namespace trackscan::dsp {

struct TuningEstimate {
  double reference_hz;  // frequency of A4
  double cents_offset;  // 1200 * log2(reference_hz / 440)
  double confidence;    // 0..1
};

class TuningEstimator {
 public:
  static Result<TuningEstimator> Create(double sample_rate_hz);
  void Process(const float* mono, std::size_t n);
  std::optional<TuningEstimate> Estimate() const;

 private:
  explicit TuningEstimator(double sample_rate_hz) : sample_rate_hz_(sample_rate_hz) {}
  double sample_rate_hz_;
};

}  // namespace trackscan::dsp

#endif  // TRACKSCAN_DSP_TUNING_H_
