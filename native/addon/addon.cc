// The addon's single entry point: exports Analyzer, version() and init().
#include <napi.h>

#include "../dsp/params.h"
#include "analyzer_wrap.h"
#include "errors.h"

namespace trackscan::addon {

namespace {

Napi::Value Version(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), dsp::params::kAnalyzerVersion);
}

// init(AnalysisError): the JS error class native failures are created as.
Napi::Value Init(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsFunction()) {
    Napi::TypeError::New(env, "init: expected the AnalysisError class").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  env.GetInstanceData<InstanceData>()->analysis_error = Napi::Persistent(info[0].As<Napi::Function>());
  return env.Undefined();
}

Napi::Object Register(Napi::Env env, Napi::Object exports) {
  auto* data = new InstanceData();
  env.SetInstanceData<InstanceData>(data);
  Napi::Function analyzer = AnalyzerWrap::Define(env);
  data->analyzer_ctor = Napi::Persistent(analyzer);
  exports.Set("Analyzer", analyzer);
  exports.Set("version", Napi::Function::New<Version>(env, "version"));
  exports.Set("init", Napi::Function::New<Init>(env, "init"));
  return exports;
}

}  // namespace

}  // namespace trackscan::addon

// NODE_API_MODULE pastes the function name into an identifier: no qualifier.
static Napi::Object RegisterTrackscan(Napi::Env env, Napi::Object exports) {
  return trackscan::addon::Register(env, exports);
}

NODE_API_MODULE(trackscan, RegisterTrackscan)
