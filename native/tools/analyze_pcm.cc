// analyze_pcm: runs dsp::Analyzer on raw interleaved float32 PCM from stdin
// and prints the result as one JSON line. For tuning the estimators and for
// native benches without Node:
//
//   ffmpeg -v error -i song.mp3 -f f32le -ac 2 -ar 44100 - | analyze_pcm 44100 2
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "analyzer.h"

namespace {

void PrintNumber(double v) {
  if (std::isfinite(v)) {
    std::printf("%.6g", v);
  } else {
    std::printf("null");
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: analyze_pcm RATE CHANNELS < f32le\n");
    return 2;
  }
  trackscan::dsp::AnalyzerConfig config;
  config.sample_rate_hz = std::atof(argv[1]);
  config.channels = std::atoi(argv[2]);
  auto created = trackscan::dsp::Analyzer::Create(config);
  if (!created.ok()) {
    std::fprintf(stderr, "analyze_pcm: %s\n", trackscan::dsp::StatusName(created.status()));
    return 2;
  }
  trackscan::dsp::Analyzer analyzer = created.take();
  std::vector<float> buf(65536 * config.channels);
  double busy_s = 0;
  for (;;) {
    const std::size_t got = std::fread(buf.data(), sizeof(float), buf.size(), stdin);
    const std::size_t frames = got / config.channels;
    if (frames == 0) break;
    const auto t0 = std::chrono::steady_clock::now();
    if (analyzer.Push(buf.data(), frames) != trackscan::dsp::Status::kOk) return 1;
    busy_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  const auto t0 = std::chrono::steady_clock::now();
  auto result = analyzer.Finish();
  busy_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!result.ok()) return 1;
  const auto& r = result.value();
  std::printf("{\"duration_s\":");
  PrintNumber(r.duration_s);
  std::printf(",\"analysis_s\":");
  PrintNumber(busy_s);
  std::printf(",\"lufs\":");
  PrintNumber(r.loudness.integrated_lufs);
  std::printf(",\"lra\":");
  PrintNumber(r.loudness.loudness_range_lu);
  std::printf(",\"true_peak\":");
  PrintNumber(r.loudness.true_peak_dbtp);
  std::printf(",\"bpm\":");
  PrintNumber(r.tempo ? r.tempo->bpm : NAN);
  std::printf(",\"bpm_confidence\":");
  PrintNumber(r.tempo ? r.tempo->confidence : NAN);
  std::printf(",\"tempo_candidates\":[");
  if (r.tempo) {
    for (std::size_t i = 0; i < r.tempo->candidates.size(); ++i) {
      std::printf(i ? ",[" : "[");
      PrintNumber(r.tempo->candidates[i].bpm);
      std::printf(",");
      PrintNumber(r.tempo->candidates[i].score);
      std::printf("]");
    }
  }
  std::printf("],\"key_tonic\":");
  PrintNumber(r.key ? r.key->tonic : NAN);
  std::printf(",\"key_minor\":%s", r.key ? (r.key->minor ? "true" : "false") : "null");
  std::printf(",\"key_confidence\":");
  PrintNumber(r.key ? r.key->confidence : NAN);
  std::printf(",\"hz\":");
  PrintNumber(r.tuning ? r.tuning->reference_hz : NAN);
  std::printf(",\"hz_confidence\":");
  PrintNumber(r.tuning ? r.tuning->confidence : NAN);
  std::printf("}\n");
  return 0;
}
