// Turns dsp::Status into instances of the JS AnalysisError class that
// src/native/binding.ts hands over at load time through init().
#ifndef TRACKSCAN_ADDON_ERRORS_H_
#define TRACKSCAN_ADDON_ERRORS_H_

#include <napi.h>

#include <string>

#include "../dsp/status.h"

namespace trackscan::addon {

struct InstanceData {
  Napi::FunctionReference analysis_error;  // JS class (message, code)
  Napi::FunctionReference analyzer_ctor;
};

// "ERR_ANALYZER_..." for a status; stable, listed in src/errors.ts.
const char* StatusCode(dsp::Status status);

// An AnalysisError(message, code), or a plain Error before init() ran.
Napi::Value MakeError(Napi::Env env, const std::string& message, const char* code);

}  // namespace trackscan::addon

#endif  // TRACKSCAN_ADDON_ERRORS_H_
