#include "errors.h"

namespace trackscan::addon {

const char* StatusCode(dsp::Status status) {
  switch (status) {
    case dsp::Status::kOk: return "ERR_ANALYZER_OK";
    case dsp::Status::kInvalidArgument: return "ERR_ANALYZER_INVALID_ARGUMENT";
    case dsp::Status::kOutOfMemory: return "ERR_ANALYZER_OUT_OF_MEMORY";
    case dsp::Status::kInternal: return "ERR_ANALYZER_INTERNAL";
  }
  return "ERR_ANALYZER_INTERNAL";
}

Napi::Value MakeError(Napi::Env env, const std::string& message, const char* code) {
  InstanceData* data = env.GetInstanceData<InstanceData>();
  if (data != nullptr && !data->analysis_error.IsEmpty()) {
    return data->analysis_error.New({Napi::String::New(env, message), Napi::String::New(env, code)});
  }
  Napi::Error err = Napi::Error::New(env, message);
  err.Set("code", Napi::String::New(env, code));
  return err.Value();
}

}  // namespace trackscan::addon
