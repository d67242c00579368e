// Downmix-and-resample stage of the shared front end: interleaved frames at
// the source rate in, mono samples at params::kAnalysisRateHz out. RAII over
// the speexdsp resampler (Debian libspeexdsp-dev, Homebrew speexdsp).
//
// Downmix is the plain mean of the channels: the estimators look at pitch
// classes and onsets, for which the sum of channels is what a listener hears.
#ifndef TRACKSCAN_DSP_RESAMPLER_H_
#define TRACKSCAN_DSP_RESAMPLER_H_

#include <cstddef>
#include <memory>
#include <vector>

#include "status.h"

struct SpeexResamplerState_;

namespace trackscan::dsp {

class MonoResampler {
 public:
  static Result<MonoResampler> Create(double input_rate_hz, int channels, double output_rate_hz);

  // Appends the mono output for `frames` interleaved input frames to *out.
  Status Process(const float* interleaved, std::size_t frames, std::vector<float>* out);

 private:
  struct StateDeleter {
    void operator()(SpeexResamplerState_* st) const;
  };
  explicit MonoResampler(int channels);

  // Null when the rates are equal; second_ only when the first stage is an
  // integer decimation to an intermediate rate (see resampler.cc).
  std::unique_ptr<SpeexResamplerState_, StateDeleter> first_;
  std::unique_ptr<SpeexResamplerState_, StateDeleter> second_;
  int channels_;
  double first_ratio_ = 1.0;   // output rate / input rate of each stage
  double second_ratio_ = 1.0;
  std::vector<float> mono_;    // downmixed input awaiting resampling
  std::vector<float> mid_;     // first stage's output awaiting the second
};

}  // namespace trackscan::dsp

#endif  // TRACKSCAN_DSP_RESAMPLER_H_
