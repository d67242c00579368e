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
  MonoResampler(SpeexResamplerState_* st, int channels, double ratio);

  std::unique_ptr<SpeexResamplerState_, StateDeleter> state_;  // null when rates are equal
  int channels_;
  double ratio_;               // output rate / input rate
  std::vector<float> mono_;    // downmixed input awaiting resampling
};

}  // namespace trackscan::dsp

#endif  // TRACKSCAN_DSP_RESAMPLER_H_
