#include "tonal_frontend.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "params.h"

namespace trackscan::dsp {

namespace {

constexpr double kPi = 3.14159265358979323846;

// Adds w at fractional position pos of a circular histogram of n bins whose
// bin i is centred on i, split linearly between the two nearest bins so the
// weighted centroid stays exact.
template <typename T, std::size_t N>
void Splat(std::array<T, N>* hist, double pos, double w) {
  const double fl = std::floor(pos);
  const double frac = pos - fl;
  const auto i0 = static_cast<std::size_t>(((static_cast<long long>(fl) % static_cast<long long>(N)) + N) % N);
  const std::size_t i1 = (i0 + 1) % N;
  (*hist)[i0] += static_cast<T>(w * (1.0 - frac));
  (*hist)[i1] += static_cast<T>(w * frac);
}

}  // namespace

Result<TonalFrontend> TonalFrontend::Create(double sample_rate_hz) {
  // The bands below must fit under Nyquist.
  if (!(sample_rate_hz >= 2.0 * std::max(params::kTuningMaxHz, params::kTonalChromaMaxHz) + 100.0) ||
      !(sample_rate_hz <= params::kMaxSampleRateHz)) {
    return Status::kInvalidArgument;
  }
  Result<RealFft> fft = RealFft::Create(params::kTonalFrameSize);
  if (!fft.ok()) return fft.status();
  return TonalFrontend(sample_rate_hz, fft.take());
}

TonalFrontend::TonalFrontend(double sample_rate_hz, RealFft fft)
    : sample_rate_hz_(sample_rate_hz),
      fft_(std::move(fft)),
      window_(params::kTonalFrameSize),
      // Leading zeros: the first frame ends one hop into the input, so a
      // clip of a second or two still yields a few frames.
      buffer_(params::kTonalFrameSize, 0.0f),
      segment_frames_(params::kTonalSegmentFrames),
      frame_(params::kTonalFrameSize),
      spectrum_(params::kTonalFrameSize / 2 + 1),
      log_mag_(params::kTonalFrameSize / 2 + 1),
      prefix_(params::kTonalFrameSize / 2 + 2) {
  const std::size_t n = params::kTonalFrameSize;
  // Periodic Hann: the two-bin ratio estimator below is exact for it.
  for (std::size_t i = 0; i < n; ++i) window_[i] = static_cast<float>(0.5 - 0.5 * std::cos(2.0 * kPi * i / n));
}

void TonalFrontend::Process(const float* mono, std::size_t n) {
  const std::size_t hop = params::kTonalHopSize;
  while (n > 0) {
    // buffer_ always holds the latest kTonalFrameSize samples; a frame ends
    // every `hop` of them, wherever the chunk boundaries fall.
    const std::size_t take = std::min(n, hop - new_samples_);
    std::move(buffer_.begin() + static_cast<std::ptrdiff_t>(take), buffer_.end(), buffer_.begin());
    std::copy(mono, mono + take, buffer_.end() - static_cast<std::ptrdiff_t>(take));
    new_samples_ += take;
    mono += take;
    n -= take;
    if (new_samples_ == hop) {
      AnalyseFrame();
      new_samples_ = 0;
    }
  }
}

void TonalFrontend::Finish() {
  if (finished_) return;
  finished_ = true;
  if (new_samples_ > 0) {
    // Zero-pad the unfinished hop so its samples are analysed too (at most
    // half the window is zeros: -3 dB, far from a ring-out's decay).
    const std::size_t pad = params::kTonalHopSize - new_samples_;
    std::move(buffer_.begin() + static_cast<std::ptrdiff_t>(pad), buffer_.end(), buffer_.begin());
    std::fill(buffer_.end() - static_cast<std::ptrdiff_t>(pad), buffer_.end(), 0.0f);
    AnalyseFrame();
    new_samples_ = 0;
  }
  FindFinalChord();
}

void TonalFrontend::FindFinalChord() {
  const std::size_t n = recent_.size();
  if (n < 2) return;
  // Median level of the audible frames.
  double total = 0.0;
  for (double c : level_counts_) total += c;
  double seen = 0.0, median_db = params::kTonalEndingFloorDbfs;
  for (std::size_t i = 0; i < level_counts_.size(); ++i) {
    seen += level_counts_[i];
    if (seen >= 0.5 * total) {
      median_db = params::kTonalEndingFloorDbfs + static_cast<double>(i) + 0.5;
      break;
    }
  }
  // Oldest first.
  auto at = [&](std::size_t i) -> const LevelledFrame& { return recent_[(recent_next_ + i) % n]; };
  // The music stops inside the window: its last frame at the music's level,
  // then a fall of kTonalEndingDecayDb or more by the end of the input.
  std::size_t last_loud = n;
  for (std::size_t i = 0; i < n; ++i) {
    if (at(i).level_db >= median_db - params::kTonalEndingMinLevelDb) last_loud = i;
  }
  if (last_loud == n || last_loud == 0) return;
  const double top = at(last_loud).level_db;
  if (at(n - 1).level_db > top - params::kTonalEndingDecayDb) return;
  // Nothing new starts while it dies away: a fade-out over moving harmony
  // (or drums) rises again at every new chord or hit.
  for (std::size_t i = last_loud + 1; i < n; ++i) {
    if (at(i).level_db > at(i - 1).level_db + params::kTonalEndingMaxRiseDb) return;
  }
  // The chord: the frame before, that frame, and the ring-out while it is
  // still within kTonalEndingDecayDb of it.
  TonalSegment chord;
  for (std::size_t i = last_loud - 1; i < n; ++i) {
    if (i > last_loud && at(i).level_db < top - params::kTonalEndingDecayDb) break;
    for (int b = 0; b < kFineChromaBins; ++b) {
      chord.bass[b] += at(i).chroma.bass[b];
      chord.treble[b] += at(i).chroma.treble[b];
    }
    chord.frames += 1.0;
  }
  features_.final_chord = chord;
}

void TonalFrontend::AnalyseFrame() {
  const std::size_t size = params::kTonalFrameSize;
  for (std::size_t i = 0; i < size; ++i) frame_[i] = buffer_[i] * window_[i];
  fft_.Forward(frame_.data(), spectrum_.data());

  const double bin_hz = sample_rate_hz_ / static_cast<double>(size);
  const auto half_width = static_cast<std::size_t>(params::kTonalFloorHalfWidthBins);
  const auto k_min = std::max<std::size_t>(2, static_cast<std::size_t>(params::kTonalBassMinHz / bin_hz));
  const auto k_max = static_cast<std::size_t>(std::max(params::kTuningMaxHz, params::kTonalChromaMaxHz) / bin_hz) + 1;
  const std::size_t lo = k_min > half_width ? k_min - half_width : 0;
  const std::size_t hi = std::min(spectrum_.size() - 1, k_max + half_width + 1);

  // A full-scale sine gives |X| = N/4 under a Hann window; partials weaker
  // than kTonalAbsoluteFloorDbfs are not music we can hear in a mix.
  const double abs_floor = std::log(size / 4.0) + params::kTonalAbsoluteFloorDbfs / 20.0 * std::log(10.0);
  const double min_log = abs_floor - 10.0;
  prefix_[lo] = 0.0;
  double band_power = 0.0;
  for (std::size_t k = lo; k <= hi; ++k) {
    const float p = std::norm(spectrum_[k]);
    if (k >= k_min && k <= k_max && std::isfinite(p)) band_power += p;
    // Non-finite input (the analyzer replaces it, direct callers might not)
    // reads as silence rather than poisoning the prefix sums.
    log_mag_[k] = p > 0.0f && std::isfinite(p) ? 0.5f * std::log(p) : static_cast<float>(min_log);
    if (log_mag_[k] < min_log) log_mag_[k] = static_cast<float>(min_log);
    prefix_[k + 1] = prefix_[k] + log_mag_[k];
  }

  const double over_floor = params::kTonalPeakOverFloorDb / 20.0 * std::log(10.0);
  TonalSegment* seg = nullptr;
  if (features_.segments.empty() || features_.segments.back().frames >= static_cast<double>(segment_frames_)) {
    if (features_.segments.size() == params::kTonalMaxSegments) {
      // Merge neighbours pairwise: half as many segments, twice as long.
      std::vector<TonalSegment>& s = features_.segments;
      for (std::size_t i = 0; i < s.size() / 2; ++i) {
        TonalSegment m = s[2 * i];
        for (int b = 0; b < kFineChromaBins; ++b) {
          m.bass[b] += s[2 * i + 1].bass[b];
          m.treble[b] += s[2 * i + 1].treble[b];
        }
        m.frames += s[2 * i + 1].frames;
        s[i] = m;
      }
      s.resize(s.size() / 2);
      segment_frames_ *= 2;
    }
    if (features_.segments.empty() || features_.segments.back().frames >= static_cast<double>(segment_frames_)) {
      features_.segments.emplace_back();
    }
  }
  seg = &features_.segments.back();
  seg->frames += 1.0;
  features_.frames += 1.0;

  peaks_.clear();
  for (std::size_t k = k_min; k <= k_max; ++k) {
    const float m = log_mag_[k];
    if (!(m > log_mag_[k - 1] && m >= log_mag_[k + 1]) || m < abs_floor) continue;
    const std::size_t a = std::max(lo, k - std::min(k, half_width));
    const std::size_t b = std::min(hi, k + half_width);
    const double floor = (prefix_[b + 1] - prefix_[a]) / static_cast<double>(b + 1 - a);
    const double snr = m - floor;  // natural-log amplitude ratio
    if (snr < over_floor) continue;

    // Hann two-bin ratio: with r = |X[k+-1]| / |X[k]| on the larger side,
    // the offset is (2r - 1) / (r + 1) bins, exact for a lone sinusoid.
    const bool right = log_mag_[k + 1] > log_mag_[k - 1];
    const double r = std::exp(static_cast<double>((right ? log_mag_[k + 1] : log_mag_[k - 1]) - m));
    const double delta = (2.0 * r - 1.0) / (r + 1.0);
    const double freq_hz = (static_cast<double>(k) + (right ? delta : -delta)) * bin_hz;
    if (!(freq_hz > 0.0)) continue;
    const double cents = 1200.0 * std::log2(freq_hz / 440.0);
    // Weight: how far the partial stands above the floor, beyond the
    // threshold, in nepers. A log compression: one loud instrument does not
    // drown the others, and the weight does not depend on the level.
    const double w = snr - over_floor + params::kTonalPeakWeightOffset;
    peaks_.push_back(Peak{freq_hz, cents, w});
  }

  // peaks_ is in ascending frequency. A partial with another partial near
  // f/3, f/5 or f/7 is most likely that note's 3rd (or 6th), 5th or 7th
  // harmonic, which equal temperament puts 2, -14 and -31 cents off the
  // grid; it still names a pitch class for the chroma, but it does not vote
  // for the tuning, which the octave partials (1, 2, 4, 8) then carry alone.
  constexpr double kHarmonicCents[3] = {1901.955, 2786.314, 3368.826};  // 1200 log2(3, 5, 7)
  TonalSegment now;
  now.frames = 1.0;
  for (const Peak& p : peaks_) {
    bool overtone = false;
    for (double h : kHarmonicCents) {
      const double below = p.cents - h;
      auto it = std::lower_bound(peaks_.begin(), peaks_.end(), below - params::kTuningHarmonicToleranceCents,
                                 [](const Peak& q, double c) { return q.cents < c; });
      if (it != peaks_.end() && it->cents <= below + params::kTuningHarmonicToleranceCents) overtone = true;
    }
    if (p.freq_hz >= params::kTuningMinHz && p.freq_hz <= params::kTuningMaxHz) {
      if (!overtone) {
        // Low partials are placed less precisely in cents (a bin is 24 cents
        // at 100 Hz, 4 at 600 Hz) and beat against neighbours in a mix.
        const double wt = p.weight * std::min(1.0, p.freq_hz / params::kTuningFullWeightHz);
        Splat(&features_.tuning_histogram, p.cents - 100.0 * std::floor(p.cents / 100.0), wt);
        features_.peak_weight += wt;
      }
    }
    if (p.freq_hz <= params::kTonalChromaMaxHz) {
      const double fine = (p.cents - 1200.0 * std::floor(p.cents / 1200.0)) / (1200.0 / kFineChromaBins);
      const bool low = p.freq_hz < params::kTonalBassMaxHz;
      Splat(low ? &seg->bass : &seg->treble, fine, p.weight);
      Splat(low ? &now.bass : &now.treble, fine, p.weight);
      if (!overtone && p.freq_hz >= params::kTonalBassMaxHz) Splat(&features_.treble_fundamentals, fine, p.weight);
    }
  }
  const auto peaks = static_cast<int>(peaks_.size());
  if (peaks >= params::kTonalMinFramePeaks) features_.tonal_frames += 1.0;

  // Level of the band, relative to a full-scale sine (|X| = N/4).
  const double full_scale = static_cast<double>(size) * static_cast<double>(size) / 16.0;
  const double level_db = band_power > 0.0 ? 10.0 * std::log10(band_power / full_scale) : -1e9;
  if (level_db >= params::kTonalEndingFloorDbfs) {
    const double bin =
        std::min(static_cast<double>(level_counts_.size() - 1), level_db - params::kTonalEndingFloorDbfs);
    level_counts_[static_cast<std::size_t>(bin)] += 1.0;
    if (recent_.size() < params::kTonalEndingFrames) {
      recent_.push_back(LevelledFrame{level_db, now});
    } else {
      recent_[recent_next_] = LevelledFrame{level_db, now};
      recent_next_ = (recent_next_ + 1) % recent_.size();
    }
  }
}

}  // namespace trackscan::dsp
