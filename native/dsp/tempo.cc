#include "tempo.h"

namespace trackscan::dsp {

Result<TempoEstimator> TempoEstimator::Create(double sample_rate_hz) {
  if (!(sample_rate_hz > 0.0)) return Status::kInvalidArgument;
  return TempoEstimator(sample_rate_hz);
}

void TempoEstimator::Process(const float*, std::size_t) {}

std::optional<TempoEstimate> TempoEstimator::Estimate() const { return std::nullopt; }

}  // namespace trackscan::dsp
