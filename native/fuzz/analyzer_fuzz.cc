// libFuzzer target: drives dsp::Analyzer with arbitrary sample rates,
// channel counts, switches, chunk sizes and sample values (NaN, Inf,
// denormals, full-scale square waves...). Built with clang and ASan/UBSan:
//
//   cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DTRACKSCAN_FUZZ=ON
//   cmake --build build-fuzz --target analyzer_fuzz -j2
//   build-fuzz/analyzer_fuzz -max_total_time=600 -rss_limit_mb=4096
//
// The first bytes choose the configuration; the rest are samples, read as
// float32 or (to reach loud, periodic, tonal material too) as 8-bit values
// scaled to full scale, depending on a flag.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "analyzer.h"

namespace {

constexpr double kRates[] = {8000, 11025, 16000, 22050, 32000, 44100, 48000, 88200, 96000, 176400, 192000, 384000};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 4) return 0;
  trackscan::dsp::AnalyzerConfig config;
  config.sample_rate_hz = kRates[data[0] % (sizeof(kRates) / sizeof(kRates[0]))];
  config.channels = 1 + data[1] % 8;
  config.detect_tempo = data[2] & 1;
  config.detect_key = data[2] & 2;
  config.detect_tuning = data[2] & 4;
  config.channel_mask = (data[2] & 8) ? 0x3F : 0;
  const bool bytes_as_floats = data[2] & 16;
  const std::size_t chunk_frames = 1 + (static_cast<std::size_t>(data[3]) * 37) % 9000;
  data += 4;
  size -= 4;

  auto created = trackscan::dsp::Analyzer::Create(config);
  if (!created.ok()) return 0;
  trackscan::dsp::Analyzer analyzer = created.take();

  std::vector<float> samples;
  if (bytes_as_floats) {
    samples.resize(size / sizeof(float));
    std::memcpy(samples.data(), data, samples.size() * sizeof(float));
  } else {
    // Repeat the bytes so that even small inputs make seconds of audio.
    const std::size_t total = std::min<std::size_t>(size * 64, static_cast<std::size_t>(config.sample_rate_hz) * 4);
    samples.resize(total);
    for (std::size_t i = 0; i < total && size > 0; ++i) samples[i] = (static_cast<int>(data[i % size]) - 128) / 128.0f;
  }
  const std::size_t frames = samples.size() / config.channels;
  for (std::size_t i = 0; i < frames; i += chunk_frames) {
    const std::size_t n = std::min(chunk_frames, frames - i);
    if (analyzer.Push(samples.data() + i * config.channels, n) != trackscan::dsp::Status::kOk) return 0;
  }
  auto result = analyzer.Finish();
  (void)result;
  return 0;
}
