// Downmix-and-resample stage of the shared front end: interleaved frames at
// the source rate in, mono samples at params::kAnalysisRateHz out. RAII over
// a libsoxr resampler (Debian libsoxr-dev, Homebrew libsoxr).
//
// Downmix is the plain mean of the channels: the estimators look at pitch
// classes and onsets, for which the sum of channels is what a listener hears.
#ifndef TRACKSCAN_DSP_RESAMPLER_H_
#define TRACKSCAN_DSP_RESAMPLER_H_

#include <cstddef>
#include <memory>
#include <vector>

#include "status.h"

struct soxr;

namespace trackscan::dsp {

class MonoResampler {
 public:
  static Result<MonoResampler> Create(double input_rate_hz, int channels, double output_rate_hz);

  // Appends the mono output for `frames` interleaved input frames to *out.
  // The filter holds back its latency's worth of output until Flush.
  Status Process(const float* interleaved, std::size_t frames, std::vector<float>* out);

  // Appends what the filter still holds, the end of the input. Call once,
  // after the last Process.
  Status Flush(std::vector<float>* out);

 private:
  struct StateDeleter {
    void operator()(soxr* st) const;
  };
  MonoResampler(int channels, double ratio);

  Status Run(const float* in, std::size_t n, std::vector<float>* out);

  std::unique_ptr<soxr, StateDeleter> soxr_;  // null when the rates are equal
  int channels_;
  double ratio_;             // output rate / input rate
  std::vector<float> mono_;  // downmixed input awaiting resampling
};

}  // namespace trackscan::dsp

#endif  // TRACKSCAN_DSP_RESAMPLER_H_
