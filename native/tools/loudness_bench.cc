// loudness_bench: what true peak costs, libebur128's way and trackscan's.
// Reads raw interleaved float32 PCM from stdin (decoded once, by ffmpeg) and
// times, on the same samples in the same process:
//   base  libebur128 with the modes trackscan uses (I, LRA, S, sample peak, histogram)
//   +tp   the same plus libebur128's EBUR128_MODE_TRUE_PEAK
//   ours  trackscan's TruePeak meter alone (skip-ahead, exact)
//
//   ffmpeg -v error -i song.flac -f f32le -ac 2 -ar 44100 - | loudness_bench 44100 2
#include <ebur128.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "true_peak.h"

namespace {

double Seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double TimeLibebur128(const std::vector<float>& pcm, unsigned rate, unsigned channels, int mode, double* tp) {
  const auto t0 = std::chrono::steady_clock::now();
  ebur128_state* st = ebur128_init(channels, rate, mode);
  const std::size_t chunk = 65536;
  const std::size_t frames = pcm.size() / channels;
  for (std::size_t i = 0; i < frames; i += chunk) {
    ebur128_add_frames_float(st, pcm.data() + i * channels, std::min(chunk, frames - i));
  }
  double lufs = 0;
  ebur128_loudness_global(st, &lufs);
  *tp = 0;
  if (mode & EBUR128_MODE_TRUE_PEAK) {
    for (unsigned c = 0; c < channels; ++c) {
      double p = 0;
      ebur128_true_peak(st, c, &p);
      *tp = std::max(*tp, p);
    }
  }
  ebur128_destroy(&st);
  return Seconds(t0);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: loudness_bench RATE CHANNELS < f32le\n");
    return 2;
  }
  const unsigned rate = static_cast<unsigned>(std::atoi(argv[1]));
  const unsigned channels = static_cast<unsigned>(std::atoi(argv[2]));
  std::vector<float> pcm;
  std::vector<float> buf(1 << 16);
  for (std::size_t got; (got = std::fread(buf.data(), sizeof(float), buf.size(), stdin)) > 0;) {
    pcm.insert(pcm.end(), buf.begin(), buf.begin() + got);
  }
  pcm.resize(pcm.size() - pcm.size() % channels);
  const double minutes = pcm.size() / channels / static_cast<double>(rate) / 60.0;
  const int base = EBUR128_MODE_I | EBUR128_MODE_LRA | EBUR128_MODE_S | EBUR128_MODE_SAMPLE_PEAK |
                   EBUR128_MODE_HISTOGRAM;
  double tp_lib = 0;
  double unused = 0;
  // Best of three runs of each, interleaved, so machine noise hits all alike.
  double t_base = 1e9, t_tp = 1e9, t_ours = 1e9, tp_ours = 0;
  for (int run = 0; run < 3; ++run) {
    t_base = std::min(t_base, TimeLibebur128(pcm, rate, channels, base, &unused));
    t_tp = std::min(t_tp, TimeLibebur128(pcm, rate, channels, base | EBUR128_MODE_TRUE_PEAK, &tp_lib));
    const auto t0 = std::chrono::steady_clock::now();
    auto meter = trackscan::dsp::TruePeak::Create(rate, static_cast<int>(channels));
    const std::size_t chunk = 65536;
    for (std::size_t i = 0; i < pcm.size() / channels; i += chunk) {
      meter.value().Process(pcm.data() + i * channels, std::min(chunk, pcm.size() / channels - i));
    }
    tp_ours = meter.value().MaxLinear();
    t_ours = std::min(t_ours, Seconds(t0));
  }
  std::printf(
      "{\"minutes\":%.3f,\"libebur128_base_s_per_min\":%.4f,\"libebur128_true_peak_extra_s_per_min\":%.4f,"
      "\"trackscan_true_peak_s_per_min\":%.4f,\"true_peak_extra_over_base\":%.2f,\"ours_over_base\":%.3f,"
      "\"true_peak_db_libebur128\":%.3f,\"true_peak_db_trackscan\":%.3f}\n",
      minutes, t_base / minutes, (t_tp - t_base) / minutes, t_ours / minutes, (t_tp - t_base) / t_base,
      t_ours / t_base, 20 * std::log10(tp_lib), 20 * std::log10(tp_ours));
  return 0;
}
