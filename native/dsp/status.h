// Status and Result<T>: how the DSP core reports failure without exceptions.
//
// Nothing in native/dsp throws across its API; fallible calls return a Status
// from this small closed set, which the addon maps to one JS error code each
// (native/addon/errors.cc).
#ifndef TRACKSCAN_DSP_STATUS_H_
#define TRACKSCAN_DSP_STATUS_H_

#include <optional>
#include <utility>

namespace trackscan::dsp {

enum class Status {
  kOk = 0,
  kInvalidArgument,  // a config value out of its documented range
  kOutOfMemory,      // an allocation in a third-party library failed
  kInternal,         // a third-party library returned an unexpected error
};

inline const char* StatusName(Status s) {
  switch (s) {
    case Status::kOk: return "ok";
    case Status::kInvalidArgument: return "invalid argument";
    case Status::kOutOfMemory: return "out of memory";
    case Status::kInternal: return "internal error";
  }
  return "unknown";
}

// A value or the Status that prevented it; never both.
template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)), status_(Status::kOk) {}  // NOLINT(runtime/explicit)
  Result(Status status) : status_(status) {}                            // NOLINT(runtime/explicit)

  bool ok() const { return status_ == Status::kOk; }
  Status status() const { return status_; }
  T& value() { return *value_; }
  T&& take() { return std::move(*value_); }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace trackscan::dsp

#endif  // TRACKSCAN_DSP_STATUS_H_
