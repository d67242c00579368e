#include "tuning.h"

namespace trackscan::dsp {

Result<TuningEstimator> TuningEstimator::Create(double sample_rate_hz) {
  if (!(sample_rate_hz > 0.0)) return Status::kInvalidArgument;
  return TuningEstimator(sample_rate_hz);
}

void TuningEstimator::Process(const float*, std::size_t) {}

std::optional<TuningEstimate> TuningEstimator::Estimate() const { return std::nullopt; }

}  // namespace trackscan::dsp
