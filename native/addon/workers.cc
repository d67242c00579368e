#include "workers.h"

#include <cmath>
#include <utility>

#include "analyzer_wrap.h"
#include "errors.h"

namespace trackscan::addon {

namespace {

// NaN (a value that does not exist) becomes null.
Napi::Value NumberOrNull(Napi::Env env, double v) {
  return std::isfinite(v) ? Napi::Number::New(env, v) : env.Null();
}

Napi::Value LoudnessToJs(Napi::Env env, const dsp::LoudnessSummary& l) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("integratedLufs", NumberOrNull(env, l.integrated_lufs));
  o.Set("loudnessRangeLu", NumberOrNull(env, l.loudness_range_lu));
  o.Set("truePeakDbtp", NumberOrNull(env, l.true_peak_dbtp));
  o.Set("samplePeakDbfs", NumberOrNull(env, l.sample_peak_dbfs));
  Napi::Array curve = Napi::Array::New(env, l.short_term_lufs.size());
  for (std::size_t i = 0; i < l.short_term_lufs.size(); ++i) {
    curve.Set(static_cast<uint32_t>(i), NumberOrNull(env, l.short_term_lufs[i]));
  }
  o.Set("shortTermLufs", curve);
  return o;
}

Napi::Value TempoToJs(Napi::Env env, const std::optional<dsp::TempoEstimate>& t) {
  if (!t) return env.Null();
  Napi::Object o = Napi::Object::New(env);
  o.Set("bpm", t->bpm);
  o.Set("confidence", t->confidence);
  Napi::Array beats = Napi::Array::New(env, t->beat_times_s.size());
  for (std::size_t i = 0; i < t->beat_times_s.size(); ++i) beats.Set(static_cast<uint32_t>(i), t->beat_times_s[i]);
  o.Set("beatTimesSeconds", beats);
  Napi::Array cands = Napi::Array::New(env, t->candidates.size());
  for (std::size_t i = 0; i < t->candidates.size(); ++i) {
    Napi::Object c = Napi::Object::New(env);
    c.Set("bpm", t->candidates[i].bpm);
    c.Set("score", t->candidates[i].score);
    cands.Set(static_cast<uint32_t>(i), c);
  }
  o.Set("candidates", cands);
  return o;
}

Napi::Value KeyToJs(Napi::Env env, const std::optional<dsp::KeyEstimate>& k) {
  if (!k) return env.Null();
  Napi::Object o = Napi::Object::New(env);
  o.Set("tonic", k->tonic);
  o.Set("minor", k->minor);
  o.Set("confidence", k->confidence);
  Napi::Array cands = Napi::Array::New(env, k->candidates.size());
  for (std::size_t i = 0; i < k->candidates.size(); ++i) {
    Napi::Object c = Napi::Object::New(env);
    c.Set("tonic", k->candidates[i].tonic);
    c.Set("minor", k->candidates[i].minor);
    c.Set("score", k->candidates[i].score);
    cands.Set(static_cast<uint32_t>(i), c);
  }
  o.Set("candidates", cands);
  return o;
}

Napi::Value TuningToJs(Napi::Env env, const std::optional<dsp::TuningEstimate>& t) {
  if (!t) return env.Null();
  Napi::Object o = Napi::Object::New(env);
  o.Set("referenceHz", t->reference_hz);
  o.Set("centsOffset", t->cents_offset);
  o.Set("confidence", t->confidence);
  return o;
}

}  // namespace

PushWorker::PushWorker(Napi::Env env, AnalyzerWrap* wrap, std::vector<float> samples, std::size_t frames)
    : Napi::AsyncWorker(env, "trackscan:push"),
      deferred_(Napi::Promise::Deferred::New(env)),
      wrap_(wrap),
      samples_(std::move(samples)),
      frames_(frames) {}

void PushWorker::Execute() { status_ = wrap_->analyzer()->Push(samples_.data(), frames_); }

void PushWorker::OnOK() {
  Napi::Env env = Env();
  wrap_->OperationDone();
  if (status_ != dsp::Status::kOk) {
    deferred_.Reject(MakeError(env, std::string("push failed: ") + dsp::StatusName(status_), StatusCode(status_)));
    return;
  }
  deferred_.Resolve(env.Undefined());
}

void PushWorker::OnError(const Napi::Error& error) {
  wrap_->OperationDone();
  deferred_.Reject(error.Value());
}

FinishWorker::FinishWorker(Napi::Env env, AnalyzerWrap* wrap)
    : Napi::AsyncWorker(env, "trackscan:finish"),
      deferred_(Napi::Promise::Deferred::New(env)),
      wrap_(wrap),
      result_(dsp::Status::kInternal) {}

void FinishWorker::Execute() { result_ = wrap_->analyzer()->Finish(); }

void FinishWorker::OnOK() {
  Napi::Env env = Env();
  wrap_->OperationDone();
  if (!result_.ok()) {
    deferred_.Reject(MakeError(env, std::string("finish failed: ") + dsp::StatusName(result_.status()),
                               StatusCode(result_.status())));
    return;
  }
  const dsp::AnalysisResult& r = result_.value();
  Napi::Object o = Napi::Object::New(env);
  o.Set("durationSeconds", r.duration_s);
  o.Set("frames", static_cast<double>(r.frames));
  o.Set("loudness", LoudnessToJs(env, r.loudness));
  o.Set("tempo", TempoToJs(env, r.tempo));
  o.Set("key", KeyToJs(env, r.key));
  o.Set("tuning", TuningToJs(env, r.tuning));
  Napi::Array warnings = Napi::Array::New(env, r.warnings.size());
  for (std::size_t i = 0; i < r.warnings.size(); ++i) warnings.Set(static_cast<uint32_t>(i), r.warnings[i]);
  o.Set("warnings", warnings);
  deferred_.Resolve(o);
}

void FinishWorker::OnError(const Napi::Error& error) {
  wrap_->OperationDone();
  deferred_.Reject(error.Value());
}

}  // namespace trackscan::addon
