// Tempo estimator: mono samples at params::kAnalysisRateHz in; BPM, its
// confidence, beat times and ranked tempo candidates out.
//
// PLACEHOLDER until issue 3: Estimate() always answers "no pulse".
#ifndef TRACKSCAN_DSP_TEMPO_H_
#define TRACKSCAN_DSP_TEMPO_H_

#include <cstddef>
#include <optional>
#include <vector>

#include "status.h"

namespace trackscan::dsp {

struct TempoCandidate {
  double bpm;
  double score;  // 0..1, higher is more likely
};

struct TempoEstimate {
  double bpm;
  double confidence;                       // 0..1
  std::vector<double> beat_times_s;        // seconds from the start
  std::vector<TempoCandidate> candidates;  // best first
};

class TempoEstimator {
 public:
  static Result<TempoEstimator> Create(double sample_rate_hz);
  void Process(const float* mono, std::size_t n);
  // nullopt when there is no pulse to report.
  std::optional<TempoEstimate> Estimate() const;

 private:
  explicit TempoEstimator(double sample_rate_hz) : sample_rate_hz_(sample_rate_hz) {}
  double sample_rate_hz_;
};

}  // namespace trackscan::dsp

#endif  // TRACKSCAN_DSP_TEMPO_H_
