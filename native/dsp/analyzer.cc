#include "analyzer.h"

#include <cmath>
#include <limits>
#include <utility>

#include "params.h"

namespace trackscan::dsp {

Result<Analyzer> Analyzer::Create(const AnalyzerConfig& config) {
  if (!(config.sample_rate_hz >= params::kMinSampleRateHz && config.sample_rate_hz <= params::kMaxSampleRateHz) ||
      std::floor(config.sample_rate_hz) != config.sample_rate_hz || config.channels < params::kMinChannels ||
      config.channels > params::kMaxChannels) {
    return Status::kInvalidArgument;
  }
  Result<Loudness> loudness = Loudness::Create(config.sample_rate_hz, config.channels, config.channel_mask);
  if (!loudness.ok()) return loudness.status();

  std::optional<MonoResampler> resampler;
  std::optional<TempoEstimator> tempo;
  std::optional<KeyEstimator> key;
  std::optional<TuningEstimator> tuning;
  if (config.detect_tempo) {
    Result<TempoEstimator> r = TempoEstimator::Create(params::kAnalysisRateHz);
    if (!r.ok()) return r.status();
    tempo.emplace(r.take());
  }
  if (config.detect_key) {
    Result<KeyEstimator> r = KeyEstimator::Create(params::kAnalysisRateHz);
    if (!r.ok()) return r.status();
    key.emplace(r.take());
  }
  // Key detection builds its pitch classes on the measured tuning, so the
  // tuning estimator runs whenever either answer is wanted.
  if (config.detect_tuning || config.detect_key) {
    Result<TuningEstimator> r = TuningEstimator::Create(params::kAnalysisRateHz);
    if (!r.ok()) return r.status();
    tuning.emplace(r.take());
  }
  if (tempo || key || tuning) {
    Result<MonoResampler> r = MonoResampler::Create(config.sample_rate_hz, config.channels, params::kAnalysisRateHz);
    if (!r.ok()) return r.status();
    resampler.emplace(r.take());
  }
  return Analyzer(config, loudness.take(), std::move(resampler), std::move(tempo), std::move(key), std::move(tuning));
}

Analyzer::Analyzer(const AnalyzerConfig& config, Loudness loudness, std::optional<MonoResampler> resampler,
                   std::optional<TempoEstimator> tempo, std::optional<KeyEstimator> key,
                   std::optional<TuningEstimator> tuning)
    : config_(config),
      loudness_(std::move(loudness)),
      resampler_(std::move(resampler)),
      tempo_(std::move(tempo)),
      key_(std::move(key)),
      tuning_(std::move(tuning)) {}

Status Analyzer::Push(const float* interleaved, std::size_t frames) {
  const std::size_t samples = frames * static_cast<std::size_t>(config_.channels);
  // |x| <= FLT_MAX is false exactly for NaN and +-Inf. An OR over every
  // sample, without an early exit, vectorises: about a fifth of the cost of
  // stopping at the first bad one, which real audio never has.
  int bad = 0;
  for (std::size_t i = 0; i < samples; ++i) bad |= !(std::fabs(interleaved[i]) <= std::numeric_limits<float>::max());
  if (bad != 0) {
    sanitized_.assign(interleaved, interleaved + samples);
    for (float& v : sanitized_) {
      if (!std::isfinite(v)) {
        v = 0.0f;
        ++non_finite_samples_;
      }
    }
    interleaved = sanitized_.data();
  }
  frames_ += frames;

  Status s = loudness_.Process(interleaved, frames);
  if (s != Status::kOk) return s;
  if (resampler_) {
    mono_.clear();
    s = resampler_->Process(interleaved, frames, &mono_);
    if (s != Status::kOk) return s;
    FeedEstimators();
  }
  return Status::kOk;
}

void Analyzer::FeedEstimators() {
  if (tuning_) tuning_->Process(mono_.data(), mono_.size());
  if (tempo_) tempo_->Process(mono_.data(), mono_.size());
}

Result<AnalysisResult> Analyzer::Finish() {
  if (resampler_) {
    // The resampler's filter still holds the last few milliseconds.
    mono_.clear();
    const Status s = resampler_->Flush(&mono_);
    if (s != Status::kOk) return s;
    FeedEstimators();
  }
  AnalysisResult result;
  result.frames = frames_;
  result.duration_s = static_cast<double>(frames_) / config_.sample_rate_hz;
  result.loudness = loudness_.Summary();
  if (tuning_) result.tuning = tuning_->Estimate();
  if (key_) result.key = key_->Estimate(tuning_->features(), result.tuning ? result.tuning->reference_hz : 440.0);
  if (!config_.detect_tuning) result.tuning.reset();
  if (tempo_) result.tempo = tempo_->Estimate();
  if (non_finite_samples_ > 0) result.warnings.emplace_back("non_finite_samples_replaced");
  if (std::isnan(result.loudness.integrated_lufs)) {
    // All zeros, or nothing above the -70 LUFS absolute gate (or < 400 ms).
    result.warnings.emplace_back(std::isnan(result.loudness.sample_peak_dbfs) ? "digital_silence"
                                                                               : "below_loudness_gate");
  }
  return result;
}

}  // namespace trackscan::dsp
