// The streaming analyzer: owns the loudness meter, the shared front end
// (downmix + resample) and the tempo, key and tuning estimators, and feeds
// them in order. Push() interleaved frames as they are decoded, then Finish().
//
// Memory is bounded by the features the estimators keep, never by the length
// of the input: no PCM is retained beyond one Push().
#ifndef TRACKSCAN_DSP_ANALYZER_H_
#define TRACKSCAN_DSP_ANALYZER_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "key.h"
#include "loudness.h"
#include "resampler.h"
#include "status.h"
#include "tempo.h"
#include "tuning.h"

namespace trackscan::dsp {

struct AnalyzerConfig {
  double sample_rate_hz = 44100.0;  // params::kMinSampleRateHz..kMaxSampleRateHz, whole Hz
  int channels = 2;                 // params::kMinChannels..kMaxChannels
  std::uint32_t channel_mask = 0;   // WAVE channel mask, 0 when unknown
  bool detect_tempo = true;
  bool detect_key = true;
  bool detect_tuning = true;
};

struct AnalysisResult {
  double duration_s = 0.0;
  std::uint64_t frames = 0;
  LoudnessSummary loudness;
  std::optional<TempoEstimate> tempo;
  std::optional<KeyEstimate> key;
  std::optional<TuningEstimate> tuning;
  std::vector<std::string> warnings;  // non-fatal diagnostics, snake_case
};

class Analyzer {
 public:
  static Result<Analyzer> Create(const AnalyzerConfig& config);

  // Feeds interleaved frames. NaN and infinite samples are replaced by 0 and
  // reported as a warning.
  Status Push(const float* interleaved, std::size_t frames);

  // Computes the estimates. The analyzer must not be used afterwards.
  Result<AnalysisResult> Finish();

 private:
  Analyzer(const AnalyzerConfig& config, Loudness loudness, std::optional<MonoResampler> resampler,
           std::optional<TempoEstimator> tempo, std::optional<KeyEstimator> key,
           std::optional<TuningEstimator> tuning);

  // Hands mono_, the front end's latest output, to the estimators.
  void FeedEstimators();

  AnalyzerConfig config_;
  Loudness loudness_;
  std::optional<MonoResampler> resampler_;  // absent when no estimator runs
  std::optional<TempoEstimator> tempo_;
  std::optional<KeyEstimator> key_;
  std::optional<TuningEstimator> tuning_;
  std::uint64_t frames_ = 0;                // frames pushed so far
  std::uint64_t non_finite_samples_ = 0;    // samples replaced by 0
  std::vector<float> sanitized_;            // scratch: a copy without NaN/Inf
  std::vector<float> mono_;                 // scratch: front-end output
};

}  // namespace trackscan::dsp

#endif  // TRACKSCAN_DSP_ANALYZER_H_
