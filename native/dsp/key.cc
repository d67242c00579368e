#include "key.h"

namespace trackscan::dsp {

Result<KeyEstimator> KeyEstimator::Create(double sample_rate_hz) {
  if (!(sample_rate_hz > 0.0)) return Status::kInvalidArgument;
  return KeyEstimator(sample_rate_hz);
}

void KeyEstimator::Process(const float*, std::size_t) {}

std::optional<KeyEstimate> KeyEstimator::Estimate(double) const { return std::nullopt; }

}  // namespace trackscan::dsp
