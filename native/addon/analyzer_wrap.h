// JS class Analyzer(options): push(Float32Array) -> Promise<void>,
// finish() -> Promise<object>, close(). One native operation at a time.
#ifndef TRACKSCAN_ADDON_ANALYZER_WRAP_H_
#define TRACKSCAN_ADDON_ANALYZER_WRAP_H_

#include <napi.h>

#include <memory>

#include "../dsp/analyzer.h"

namespace trackscan::addon {

class AnalyzerWrap : public Napi::ObjectWrap<AnalyzerWrap> {
 public:
  static Napi::Function Define(Napi::Env env);
  explicit AnalyzerWrap(const Napi::CallbackInfo& info);
  void Finalize(Napi::Env env) override;

  dsp::Analyzer* analyzer() { return analyzer_.get(); }
  int channels() const { return channels_; }
  // Called by a worker on the JS thread when its operation is over.
  void OperationDone();

 private:
  Napi::Value Push(const Napi::CallbackInfo& info);
  Napi::Value Finish(const Napi::CallbackInfo& info);
  Napi::Value Close(const Napi::CallbackInfo& info);
  bool CheckUsable(Napi::Env env);
  void FreeAnalyzer(Napi::Env env);

  std::unique_ptr<dsp::Analyzer> analyzer_;
  int channels_ = 0;
  int64_t external_bytes_ = 0;  // what V8 was told this object holds natively
  bool busy_ = false;    // an AsyncWorker is using analyzer_
  bool closed_ = false;  // finish() or close() was called
};

}  // namespace trackscan::addon

#endif  // TRACKSCAN_ADDON_ANALYZER_WRAP_H_
