// Dev tool: runs dsp::TempoEstimator over a list of mono f32le files at
// 11025 Hz ("pcm_path label_bpm group name" per line, from prepare.mjs) and
// prints one line per file plus Acc1/Acc2 and the confidence split.
// Built by eval.sh against build-tempo/libtrackscan_dsp.a.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>
#include <algorithm>

#include "tempo.h"

using trackscan::dsp::TempoEstimator;

static bool Acc1(double est, double ref) { return std::abs(est - ref) <= 0.04 * ref; }
static bool Acc2(double est, double ref) {
  for (double m : {1.0, 2.0, 0.5, 3.0, 1.0 / 3.0})
    if (Acc1(est, ref * m)) return true;
  return false;
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  std::ifstream list(argv[1]);
  std::string line;
  struct Row { double conf; bool a1, a2; };
  std::vector<Row> rows;
  double cpu = 0, audio = 0, est_cpu = 0;
  while (std::getline(list, line)) {
    std::istringstream ls(line);
    std::string path, group, name;
    double label;
    ls >> path >> label >> group >> name;
    std::ifstream f(path, std::ios::binary);
    std::vector<float> pcm((std::istreambuf_iterator<char>(f)), {});
    // (reinterpret bytes)
    f.close();
    std::ifstream g(path, std::ios::binary | std::ios::ate);
    const std::size_t bytes = g.tellg();
    g.seekg(0);
    std::vector<float> s(bytes / 4);
    g.read(reinterpret_cast<char*>(s.data()), bytes);
    auto t0 = std::chrono::steady_clock::now();
    auto te = TempoEstimator::Create(11025).take();
    for (std::size_t i = 0; i < s.size(); i += 4096) te.Process(s.data() + i, std::min<std::size_t>(4096, s.size() - i));
    auto t1 = std::chrono::steady_clock::now();
    auto est = te.Estimate();
    est_cpu += std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
    cpu += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    audio += s.size() / 11025.0;
    const double bpm = est ? est->bpm : 0, conf = est ? est->confidence : 0;
    const bool a1 = label > 0 && Acc1(bpm, label), a2 = label > 0 && Acc2(bpm, label);
    std::printf("%-44s %7.2f %7.2f %5.3f %s%s ", name.c_str(), label, bpm, conf, a1 ? "A1" : "  ", a2 ? "A2" : "  ");
    if (est) for (auto& c : est->candidates) std::printf(" %.1f:%.2f", c.bpm, c.score);
    std::printf("\n");
    if (label > 0) rows.push_back({conf, a1, a2});
  }
  int n = rows.size(), c1 = 0, c2 = 0;
  for (auto& r : rows) { c1 += r.a1; c2 += r.a2; }
  std::vector<Row> sorted = rows;
  std::stable_sort(sorted.begin(), sorted.end(), [](const Row& a, const Row& b) { return a.conf > b.conf; });
  int h = n / 2, top = 0, bot = 0;
  for (int i = 0; i < h; ++i) top += sorted[i].a1;
  for (int i = n - h; i < n; ++i) bot += sorted[i].a1;
  // AUC: the chance that a right answer (Acc1) is more confident than a wrong
  // one (ties count half); unlike the halves' split it does not move when a
  // miss is fixed, only when the ranking changes.
  double pairs = 0, above = 0;
  for (auto& r : rows) {
    for (auto& w : rows) {
      if (!r.a1 || w.a1) continue;
      pairs += 1;
      above += r.conf > w.conf ? 1.0 : r.conf == w.conf ? 0.5 : 0.0;
    }
  }
  std::printf("N=%d Acc1=%.1f%% Acc2=%.1f%% conf-top-half Acc1=%.1f%% bottom-half=%.1f%% cpu=%.4f s/min (estimate %.4f) auc=%.3f\n", n,
              100.0 * c1 / n, 100.0 * c2 / n, 100.0 * top / h, 100.0 * bot / h, 60 * cpu / audio, 60 * est_cpu / audio,
              pairs > 0 ? above / pairs : 0.0);
}
