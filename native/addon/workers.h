// AsyncWorkers that run Analyzer::Push and Analyzer::Finish on the libuv
// pool. Each copies its input into an owned baton on the JS thread, touches
// only the baton and the dsp::Analyzer in Execute(), and settles a promise.
#ifndef TRACKSCAN_ADDON_WORKERS_H_
#define TRACKSCAN_ADDON_WORKERS_H_

#include <napi.h>

#include <vector>

#include "../dsp/analyzer.h"

namespace trackscan::addon {

class AnalyzerWrap;

class PushWorker : public Napi::AsyncWorker {
 public:
  PushWorker(Napi::Env env, AnalyzerWrap* wrap, std::vector<float> samples, std::size_t frames);
  Napi::Promise Promise() { return deferred_.Promise(); }

 protected:
  void Execute() override;
  void OnOK() override;
  void OnError(const Napi::Error& error) override;

 private:
  Napi::Promise::Deferred deferred_;
  AnalyzerWrap* wrap_;
  std::vector<float> samples_;  // owned copy of the pushed Float32Array
  std::size_t frames_;
  dsp::Status status_ = dsp::Status::kOk;
};

class FinishWorker : public Napi::AsyncWorker {
 public:
  FinishWorker(Napi::Env env, AnalyzerWrap* wrap);
  Napi::Promise Promise() { return deferred_.Promise(); }

 protected:
  void Execute() override;
  void OnOK() override;
  void OnError(const Napi::Error& error) override;

 private:
  Napi::Promise::Deferred deferred_;
  AnalyzerWrap* wrap_;
  dsp::Result<dsp::AnalysisResult> result_;
};

}  // namespace trackscan::addon

#endif  // TRACKSCAN_ADDON_WORKERS_H_
