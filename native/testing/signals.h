// Deterministic test-signal generators shared by the native tests and the
// native tools. All return interleaved float frames in [-1, 1].
#ifndef TRACKSCAN_TESTING_SIGNALS_H_
#define TRACKSCAN_TESTING_SIGNALS_H_

#include <cstdint>
#include <vector>

namespace trackscan::testing {

// A sine of peak amplitude 10^(level_dbfs/20) on every channel.
std::vector<float> Sine(double freq_hz, double level_dbfs, double seconds, double rate_hz, int channels,
                        double phase_rad = 0.0);

// Appends b to a (both interleaved with the same channel count).
void Append(std::vector<float>* a, const std::vector<float>& b);

// Uniform white noise at a peak level, from a fixed seed.
std::vector<float> Noise(double level_dbfs, double seconds, double rate_hz, int channels, std::uint32_t seed);

}  // namespace trackscan::testing

#endif  // TRACKSCAN_TESTING_SIGNALS_H_
