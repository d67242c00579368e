// Key estimator: mono samples at params::kAnalysisRateHz in; the key, its
// confidence and ranked candidates out.
//
// PLACEHOLDER until issue 3: Estimate() always answers "no key".
#ifndef TRACKSCAN_DSP_KEY_H_
#define TRACKSCAN_DSP_KEY_H_

#include <cstddef>
#include <optional>
#include <vector>

#include "status.h"

namespace trackscan::dsp {

struct KeyCandidate {
  int tonic;   // pitch class, 0 = C .. 11 = B
  bool minor;
  double score;  // 0..1, higher is more likely
};

struct KeyEstimate {
  int tonic;
  bool minor;
  double confidence;                     // 0..1
  std::vector<KeyCandidate> candidates;  // best first
};

class KeyEstimator {
 public:
  static Result<KeyEstimator> Create(double sample_rate_hz);
  void Process(const float* mono, std::size_t n);
  // reference_hz: the tuning to build pitch classes on (440 when unknown).
  std::optional<KeyEstimate> Estimate(double reference_hz) const;

 private:
  explicit KeyEstimator(double sample_rate_hz) : sample_rate_hz_(sample_rate_hz) {}
  double sample_rate_hz_;
};

}  // namespace trackscan::dsp

#endif  // TRACKSCAN_DSP_KEY_H_
