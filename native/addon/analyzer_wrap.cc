#include "analyzer_wrap.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "errors.h"
#include "workers.h"

namespace trackscan::addon {

namespace {

// The last line of defence: src/native/analyzer.ts validates options with
// clear messages; here we only refuse what would be unsafe.
bool GetBool(const Napi::Object& o, const char* name, bool fallback) {
  Napi::Value v = o.Get(name);
  return v.IsBoolean() ? v.As<Napi::Boolean>().Value() : fallback;
}

}  // namespace

Napi::Function AnalyzerWrap::Define(Napi::Env env) {
  return DefineClass(env, "Analyzer",
                     {InstanceMethod<&AnalyzerWrap::Push>("push"), InstanceMethod<&AnalyzerWrap::Finish>("finish"),
                      InstanceMethod<&AnalyzerWrap::Close>("close")});
}

AnalyzerWrap::AnalyzerWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<AnalyzerWrap>(info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsObject()) {
    Napi::TypeError::New(env, "Analyzer: expected an options object").ThrowAsJavaScriptException();
    return;
  }
  Napi::Object opts = info[0].As<Napi::Object>();
  Napi::Value rate = opts.Get("sampleRate");
  Napi::Value channels = opts.Get("channels");
  Napi::Value mask = opts.Get("channelMask");
  if (!rate.IsNumber() || !channels.IsNumber()) {
    Napi::TypeError::New(env, "Analyzer: sampleRate and channels must be numbers").ThrowAsJavaScriptException();
    return;
  }
  dsp::AnalyzerConfig config;
  config.sample_rate_hz = rate.As<Napi::Number>().DoubleValue();
  const double ch = channels.As<Napi::Number>().DoubleValue();
  config.channels = std::isfinite(ch) && ch >= 0 && ch <= 1024 ? static_cast<int>(ch) : 0;
  config.channel_mask = mask.IsNumber() ? mask.As<Napi::Number>().Uint32Value() : 0;
  config.detect_tempo = GetBool(opts, "detectTempo", true);
  config.detect_key = GetBool(opts, "detectKey", true);
  config.detect_tuning = GetBool(opts, "detectTuning", true);
  dsp::Result<dsp::Analyzer> created = dsp::Analyzer::Create(config);
  if (!created.ok()) {
    Napi::Error::New(env, std::string("Analyzer: ") + dsp::StatusName(created.status()) + " (sampleRate " +
                              std::to_string(config.sample_rate_hz) + ", channels " + std::to_string(ch) + ")")
        .ThrowAsJavaScriptException();
    return;
  }
  analyzer_ = std::make_unique<dsp::Analyzer>(created.take());
  channels_ = config.channels;
  // libebur128 keeps a 3 s window of doubles per channel; with the rest of
  // the state that dominates. Telling V8 makes it collect dropped analyzers
  // sooner instead of letting native memory pile up between collections.
  external_bytes_ = static_cast<int64_t>(config.sample_rate_hz * 3.0 * config.channels * sizeof(double)) + (1 << 20);
  Napi::MemoryManagement::AdjustExternalMemory(env, external_bytes_);
}

void AnalyzerWrap::FreeAnalyzer(Napi::Env env) {
  analyzer_.reset();
  if (external_bytes_ != 0) {
    Napi::MemoryManagement::AdjustExternalMemory(env, -external_bytes_);
    external_bytes_ = 0;
  }
}

void AnalyzerWrap::Finalize(Napi::Env env) { FreeAnalyzer(env); }

bool AnalyzerWrap::CheckUsable(Napi::Env env) {
  if (closed_) {
    Napi::Error e = Napi::Error::New(env, "Analyzer: already finished or closed");
    e.Set("code", "ERR_ANALYZER_CLOSED");
    e.ThrowAsJavaScriptException();
    return false;
  }
  if (busy_) {
    Napi::Error e = Napi::Error::New(env, "Analyzer: another operation is in flight; await it first");
    e.Set("code", "ERR_ANALYZER_BUSY");
    e.ThrowAsJavaScriptException();
    return false;
  }
  return true;
}

Napi::Value AnalyzerWrap::Push(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!CheckUsable(env)) return env.Undefined();
  if (info.Length() < 1 || !info[0].IsTypedArray() ||
      info[0].As<Napi::TypedArray>().TypedArrayType() != napi_float32_array) {
    Napi::TypeError::New(env, "push: expected a Float32Array").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  Napi::Float32Array array = info[0].As<Napi::Float32Array>();
  if (array.ElementLength() % static_cast<std::size_t>(channels_) != 0) {
    Napi::RangeError::New(env, "push: length must be a multiple of the channel count")
        .ThrowAsJavaScriptException();
    return env.Undefined();
  }
  std::vector<float> samples(array.Data(), array.Data() + array.ElementLength());
  auto* worker = new PushWorker(env, this, std::move(samples), array.ElementLength() / channels_);
  busy_ = true;
  Ref();  // keep this object alive until the worker is done
  Napi::Promise promise = worker->Promise();
  worker->Queue();
  return promise;
}

Napi::Value AnalyzerWrap::Finish(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!CheckUsable(env)) return env.Undefined();
  auto* worker = new FinishWorker(env, this);
  busy_ = true;
  closed_ = true;
  Ref();
  Napi::Promise promise = worker->Promise();
  worker->Queue();
  return promise;
}

Napi::Value AnalyzerWrap::Close(const Napi::CallbackInfo& info) {
  closed_ = true;
  if (!busy_) FreeAnalyzer(info.Env());  // else OperationDone() frees it
  return info.Env().Undefined();
}

void AnalyzerWrap::OperationDone() {
  busy_ = false;
  if (closed_) FreeAnalyzer(Env());
  Unref();
}

}  // namespace trackscan::addon
