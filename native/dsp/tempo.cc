#include "tempo.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "params.h"

namespace trackscan::dsp {

namespace {

constexpr double kPi = 3.14159265358979323846;

// Linear interpolation of v at a fractional index; 0 outside.
double At(const std::vector<double>& v, double x) {
  if (x < 0.0) return 0.0;
  const std::size_t i = static_cast<std::size_t>(x);
  if (i + 1 >= v.size()) return i < v.size() && x == static_cast<double>(i) ? v[i] : 0.0;
  const double f = x - static_cast<double>(i);
  return v[i] * (1.0 - f) + v[i + 1] * f;
}

// Centred moving average of width `w` (odd), edges averaged over what exists.
std::vector<double> MovingAverage(const std::vector<double>& x, std::size_t w) {
  const std::size_t n = x.size();
  std::vector<double> prefix(n + 1, 0.0);
  for (std::size_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + x[i];
  std::vector<double> out(n);
  const std::size_t h = w / 2;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t lo = i >= h ? i - h : 0;
    const std::size_t hi = std::min(n, i + h + 1);
    out[i] = (prefix[hi] - prefix[lo]) / static_cast<double>(hi - lo);
  }
  return out;
}

double Prior(double bpm) {
  const double z = std::log2(bpm / params::kTempoPriorCentreBpm) / params::kTempoPriorOctaves;
  return std::exp(-0.5 * z * z);
}

// Everything Estimate() derives from the envelope, for one period grid.
struct Periodicity {
  std::vector<double> acf;   // normalised autocorrelation, acf[0] = 1
  std::vector<double> bpm;   // grid
  std::vector<double> comb;  // comb value per grid point
};

double Comb(const std::vector<double>& acf, double period_frames, int harmonics) {
  const double max_lag = static_cast<double>(acf.size() - 1);
  double sum = 0.0;
  int used = 0;
  for (int k = 1; k <= harmonics; ++k) {
    const double lag = k * period_frames;
    if (lag > max_lag) break;
    sum += At(acf, lag);
    ++used;
  }
  return used > 0 ? sum / used : 0.0;
}

// Envelope conditioned for periodicity: slow trend removed, level equalised
// over a few seconds. Empty when there is nothing (all zeros).
std::vector<double> Condition(const std::vector<float>& flux, double fr) {
  const std::size_t n = flux.size();
  std::vector<double> e(flux.begin(), flux.end());
  const std::size_t w_trend = 2 * static_cast<std::size_t>(0.5 * params::kTempoDetrendS * fr) + 1;
  const std::vector<double> trend = MovingAverage(e, w_trend);
  std::vector<double> d(n), sq(n);
  double global = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    d[i] = e[i] - trend[i];
    sq[i] = d[i] * d[i];
    global += sq[i];
  }
  global = std::sqrt(global / n);
  if (!(global > params::kTempoMinFluxRms)) return {};
  const std::size_t w_norm = 2 * static_cast<std::size_t>(0.5 * params::kTempoNormWindowS * fr) + 1;
  const std::vector<double> local = MovingAverage(sq, w_norm);
  std::vector<double> x(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = d[i] / std::max(std::sqrt(local[i]), params::kTempoNormFloor * global);
  }
  return x;
}

// Autocorrelation normalised by lag 0 (unbiased per lag).
std::vector<double> Autocorrelation(const std::vector<double>& x, std::size_t max_lag) {
  const std::size_t n = x.size();
  std::vector<double> acf(max_lag + 1, 0.0);
  for (std::size_t lag = 0; lag <= max_lag; ++lag) {
    double s = 0.0;
    const std::size_t m = n - lag;
    for (std::size_t i = 0; i < m; ++i) s += x[i] * x[i + lag];
    acf[lag] = s / static_cast<double>(m);
  }
  if (acf[0] > 0.0) {
    const double a0 = acf[0];
    for (double& v : acf) v /= a0;
  }
  return acf;
}

// Largest comb value within +-2 % of `bpm` (half the accuracy window), so a
// level is judged at its own peak rather than at an exact ratio of another.
double LocalComb(const std::vector<double>& acf, double frame_rate_hz, double bpm, int harmonics) {
  double best = -1.0;
  for (double r = 0.98; r <= 1.02; r += 0.002) {
    best = std::max(best, Comb(acf, 60.0 * frame_rate_hz / (bpm * r), harmonics));
  }
  return best;
}

// The comb at the odd half-multiples (k - 1/2) * P: what happens half-way
// between the candidate beats.
double HalfComb(const std::vector<double>& acf, double period_frames, int harmonics) {
  const double max_lag = static_cast<double>(acf.size() - 1);
  double sum = 0.0;
  int used = 0;
  for (int k = 1; k <= harmonics; ++k) {
    const double lag = (k - 0.5) * period_frames;
    if (lag > max_lag) break;
    sum += At(acf, lag);
    ++used;
  }
  return used > 0 ? sum / used : 0.0;
}

// Gaussian smoothing of the envelope before the autocorrelation: onsets fall
// anywhere inside a frame, so two beats' peaks can sit half a frame apart
// from the next pair's; widening each peak over a few frames (and real
// music's ~10 ms timing spread) keeps r(k P) from depending on that phase.
std::vector<double> Smooth(const std::vector<double>& x) {
  const double sigma = params::kTempoSmoothFrames;
  if (sigma <= 0) return x;
  const int h = static_cast<int>(std::ceil(3 * sigma));
  std::vector<double> k(2 * h + 1);
  double sum = 0.0;
  for (int i = -h; i <= h; ++i) sum += k[i + h] = std::exp(-0.5 * i * i / (sigma * sigma));
  for (double& v : k) v /= sum;
  const long n = static_cast<long>(x.size());
  std::vector<double> y(x.size(), 0.0);
  for (long i = 0; i < n; ++i) {
    double acc = 0.0;
    for (int j = -h; j <= h; ++j) {
      const long t = i + j;
      if (t >= 0 && t < n) acc += k[j + h] * x[t];
    }
    y[i] = acc;
  }
  return y;
}

// Correlation of a(t) with b(t + lag) averaged with that of b(t) with
// a(t + lag), at a fractional lag (frames): how often an event of one kind
// follows one of the other kind `lag` later, in either order.
double CrossCorrelation(const std::vector<double>& a, const std::vector<double>& b, double lag) {
  const std::size_t n = a.size();
  auto at = [&](std::size_t l) {
    if (l + 1 >= n) return 0.0;
    double s = 0.0;
    for (std::size_t i = 0; i + l < n; ++i) s += a[i] * b[i + l] + b[i] * a[i + l];
    return 0.5 * s / static_cast<double>(n - l);
  };
  const std::size_t l0 = static_cast<std::size_t>(lag);
  const double f = lag - static_cast<double>(l0);
  return (1.0 - f) * at(l0) + f * at(l0 + 1);
}

// Kick-snare alternation at beat period P (frames) in a bar of `beats`
// beats: the cross-correlation of the kick and snare envelopes at the lags
// inside the bar (P .. (beats-1) P) minus that at whole bars. A backbeat
// (kick on 1 and 3, snare on 2 and 4, in whatever variation; beats = 2) or a
// waltz (kick on 1, snare on 2 and 3; beats = 3) is strongly positive at its
// beat period only: at half or a third of it the snare falls on whole bars,
// at twice it on none of the lags.
double Alternation(const std::vector<double>& kick, const std::vector<double>& snare, double period, int beats) {
  double inside = 0.0, whole = 0.0;
  int used = 0;
  const double max_lag = static_cast<double>(kick.size()) / 2.0;
  for (int k = 1; k <= params::kTempoBackbeatPairs; ++k) {
    if (k * beats * period > max_lag) break;
    for (int j = 1; j < beats; ++j) inside += CrossCorrelation(kick, snare, ((k - 1) * beats + j) * period) / (beats - 1);
    whole += CrossCorrelation(kick, snare, k * beats * period);
    ++used;
  }
  return used > 0 ? (inside - whole) / used : 0.0;
}

}  // namespace

Result<TempoEstimator> TempoEstimator::Create(double sample_rate_hz) {
  if (!(sample_rate_hz >= 1000.0 && sample_rate_hz <= 400000.0)) return Status::kInvalidArgument;
  Result<RealFft> fft = RealFft::Create(params::kTempoFrameSize);
  if (!fft.ok()) return fft.status();
  return TempoEstimator(sample_rate_hz, fft.take());
}

TempoEstimator::TempoEstimator(double sample_rate_hz, RealFft fft)
    : sample_rate_hz_(sample_rate_hz),
      frame_rate_hz_(sample_rate_hz / static_cast<double>(params::kTempoHopSize)),
      fft_(std::move(fft)) {
  const std::size_t n = params::kTempoFrameSize;
  window_.resize(n);
  for (std::size_t i = 0; i < n; ++i) window_[i] = static_cast<float>(0.5 - 0.5 * std::cos(2.0 * kPi * i / n));
  const std::size_t bins = n / 2 + 1;
  band_of_bin_.assign(bins, -1);
  const double bin_hz = sample_rate_hz_ / static_cast<double>(n);
  const double lo = params::kTempoBandMinHz;
  const double hi = std::min(params::kTempoBandMaxHz, 0.5 * sample_rate_hz_);
  for (std::size_t k = 1; k < bins; ++k) {
    const double f = k * bin_hz;
    if (f < lo || f > hi) continue;
    const int b = static_cast<int>(params::kTempoBands * std::log(f / lo) / std::log(hi / lo));
    band_of_bin_[k] = std::min(b, params::kTempoBands - 1);
  }
  high_from_band_ = params::kTempoBands;
  for (int b = params::kTempoBands - 1; b >= 0; --b) {
    const double lower_edge = lo * std::pow(hi / lo, static_cast<double>(b) / params::kTempoBands);
    const double upper_edge = lo * std::pow(hi / lo, static_cast<double>(b + 1) / params::kTempoBands);
    if (upper_edge <= params::kTempoKickBandMaxHz) low_bands_ = std::max(low_bands_, b + 1);
    if (lower_edge >= params::kTempoSnareBandMinHz) high_from_band_ = b;
  }
  const std::size_t stride = static_cast<std::size_t>(params::kTempoBinStride);
  for (std::size_t k = 1; k < bins; ++k) {
    if (band_of_bin_[k] < high_from_band_) continue;
    if (snare_bins_.empty() || k - snare_bins_.back() == stride) snare_bins_.push_back(k);  // every stride-th
  }
  bin_history_.assign(params::kTempoFluxLagFrames, std::vector<float>(snare_bins_.size(), 0.0f));
  pitch_bin_lo_ = static_cast<std::size_t>(std::ceil(params::kTempoPitchFluxMinHz / bin_hz));
  const std::size_t pitch_bin_hi = std::min(bins - 1, static_cast<std::size_t>(hi / bin_hz));
  const std::size_t pitch_bins = pitch_bin_hi >= pitch_bin_lo_ ? (pitch_bin_hi - pitch_bin_lo_) / stride + 1 : 0;
  pitch_history_.assign(params::kTempoFluxLagFrames, std::vector<float>(pitch_bins, 1.0f));
  pitch_ratio_.resize(pitch_bins);
  // Frame k is centred on sample k * hop: start with half a frame of zeros.
  pending_.assign(n / 2, 0.0f);
  frame_.resize(n);
  power_.resize(bins);
  band_power_.resize(params::kTempoBands);
  history_.assign(params::kTempoFluxLagFrames, std::vector<float>(params::kTempoBands, 0.0f));
}

void TempoEstimator::Process(const float* mono, std::size_t n) {
  samples_ += n;
  const float lim = params::kTempoMaxAbsSample;
  for (std::size_t i = 0; i < n; ++i) pending_.push_back(std::clamp(mono[i], -lim, lim));
  const std::size_t size = params::kTempoFrameSize;
  const std::size_t hop = params::kTempoHopSize;
  while (pending_.size() - pending_start_ >= size) {
    ProcessFrame();
    pending_start_ += hop;
  }
  // Compact once the consumed prefix is large, so memory stays O(frame).
  if (pending_start_ >= 8 * size) {
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(pending_start_));
    pending_start_ = 0;
  }
}

void TempoEstimator::ProcessFrame() {
  const std::size_t size = params::kTempoFrameSize;
  const float* in = pending_.data() + pending_start_;
  for (std::size_t i = 0; i < size; ++i) frame_[i] = in[i] * window_[i];
  fft_.PowerSpectrum(frame_.data(), power_.data());
  std::fill(band_power_.begin(), band_power_.end(), 0.0f);
  for (std::size_t k = 0; k < power_.size(); ++k) {
    if (band_of_bin_[k] >= 0) band_power_[band_of_bin_[k]] += power_[k];
  }
  // |X| of a full-scale sine under a Hann window is N/4.
  const double ref = 4.0 / static_cast<double>(size);
  std::vector<float>& old = history_[frames_ % history_.size()];
  double flux = 0.0, low = 0.0, high = 0.0;
  for (int b = 0; b < params::kTempoBands; ++b) {
    double mag = std::sqrt(static_cast<double>(band_power_[b])) * ref;
    if (!(mag < 1e12)) mag = 1e12;  // also catches inf/nan from absurd input
    const float v = static_cast<float>(std::log1p(static_cast<float>(params::kTempoLogGamma * mag)));
    // The first frames compare with silence, which is what preceded them.
    const float d = v - old[b];
    if (d > params::kTempoMinBandRise) flux += d - params::kTempoMinBandRise;
    // The kick and snare envelopes rise in magnitude, not log magnitude: the
    // loudest event of the band should dominate (a snare over the hats).
    if ((b < low_bands_ || b >= high_from_band_) && d > 0.0f) {
      const double rise = (std::expm1(static_cast<double>(v)) - std::expm1(static_cast<double>(old[b]))) / params::kTempoLogGamma;
      (b < low_bands_ ? low : high) += rise;
    }
    old[b] = v;
  }
  flux_.push_back(static_cast<float>(flux / params::kTempoBands));
  // The same rise bin by bin, where a legato note change shows (see
  // kTempoPitchFluxMinHz). The bins keep 1 + gamma |X|, not its log: the sum
  // of the log ratios that pass the dead zone is the log of their product, so
  // one log per 16 bins does the work of one per bin (a log per bin would
  // double the tempo estimator's cost); 16 ratios of at most 1e16 stay far
  // inside a double. Two passes, because the product's chain would keep the
  // first (sqrt, divide, compare) from vectorising.
  std::vector<float>& pitch_old = pitch_history_[frames_ % pitch_history_.size()];
  const float min_ratio = std::exp(params::kTempoMinBandRise);
  const std::size_t stride = params::kTempoBinStride;
  const float gamma_ref = static_cast<float>(params::kTempoLogGamma * ref);
  const std::size_t count = pitch_old.size();
  int rising = 0;
  for (std::size_t j = 0; j < count; ++j) {
    float a = 1.0f + gamma_ref * std::sqrt(power_[pitch_bin_lo_ + stride * j]);
    a = a < 1e16f ? a : 1e16f;  // also catches inf/nan from absurd input
    const float r = a / pitch_old[j];
    pitch_old[j] = a;
    const bool rises = r > min_ratio;
    pitch_ratio_[j] = rises ? r : 1.0f;
    rising += rises;
  }
  double pitch = 0.0, product = 1.0;
  for (std::size_t j = 0; j < count; ++j) {
    product *= pitch_ratio_[j];
    if (j % 16 == 15) {
      pitch += std::log(product);
      product = 1.0;
    }
  }
  pitch += std::log(product) - params::kTempoMinBandRise * rising;
  pitch_flux_.push_back(count == 0 ? 0.0f : static_cast<float>(pitch / static_cast<double>(count)));
  low_flux_.push_back(static_cast<float>(low));
  high_flux_.push_back(static_cast<float>(high));
  // A snare is noise: it raises every bright bin, where the partials of a
  // note or chord raise only the few near them. The power mean of order 1/4
  // of the bins' magnitude rises (times their count) is about their sum for
  // the first and about the share of bins raised times the sum for the
  // second; the plain sum goes beside it for the flatness of the whole piece.
  double snare = 0.0;
  if (!snare_bins_.empty()) {
    std::vector<float>& prev = bin_history_[frames_ % bin_history_.size()];
    const float scale = static_cast<float>(ref);
    double root_sum = 0.0, sum = 0.0;
    for (std::size_t j = 0; j < snare_bins_.size(); ++j) {
      const float m = std::sqrt(power_[snare_bins_[j]]) * scale;
      const double r = std::max(0.0f, m - prev[j]);
      root_sum += std::sqrt(std::sqrt(r));
      sum += r;
      prev[j] = m;
    }
    const double count = static_cast<double>(snare_bins_.size());
    const double mean = root_sum / count;
    snare = mean * mean * mean * mean * count;
    snare_sq_ += snare * snare;
    bright_sq_ += sum * sum;
  }
  snare_flux_.push_back(static_cast<float>(snare));
  ++frames_;
}

std::optional<TempoEstimate> TempoEstimator::Estimate() const {
  const double seconds = static_cast<double>(samples_) / sample_rate_hz_;
  const std::size_t n = flux_.size();
  const double fr = frame_rate_hz_;
  if (seconds < params::kTempoMinSeconds || n < 8) return std::nullopt;

  // Whether the bright onsets are noise-like enough for a drum kit (step 3):
  // where they are not, note changes carry the pulse, and the pitch flux
  // joins the envelope.
  const double flatness = bright_sq_ > 0.0 ? std::sqrt(snare_sq_ / bright_sq_) : 0.0;
  const bool drum_kit = flatness >= params::kTempoSnareMinFlatness;
  std::vector<float> onsets = flux_;
  if (!drum_kit) {
    for (std::size_t i = 0; i < n; ++i) onsets[i] += static_cast<float>(params::kTempoPitchFluxWeight) * pitch_flux_[i];
  }
  const std::vector<double> x = Condition(onsets, fr);
  if (x.empty()) return std::nullopt;
  // Autocorrelation up to the longest lag the comb can use, but no further
  // than two thirds of the envelope (beyond, too few products to average).
  const int harmonics = params::kTempoCombHarmonics;
  const double longest_period = 60.0 * fr / params::kTempoSearchMinBpm;
  std::size_t max_lag = static_cast<std::size_t>(std::ceil(harmonics * longest_period)) + 1;
  max_lag = std::min(max_lag, 2 * n / 3);
  Periodicity p;
  p.acf = Autocorrelation(Smooth(x), max_lag);
  if (!(p.acf[0] > 0.0)) return std::nullopt;

  for (double bpm = params::kTempoSearchMinBpm; bpm <= params::kTempoSearchMaxBpm; bpm *= params::kTempoGridRatio) {
    p.bpm.push_back(bpm);
    p.comb.push_back(Comb(p.acf, 60.0 * fr / bpm, harmonics));
  }

  // Peaks of the comb inside the reportable range, weighted by the prior.
  struct Peak {
    double bpm, comb, weighted;
  };
  std::vector<Peak> peaks;
  for (std::size_t j = 1; j + 1 < p.bpm.size(); ++j) {
    const double c = p.comb[j];
    if (c <= 0.0 || c < p.comb[j - 1] || c < p.comb[j + 1]) continue;
    if (p.bpm[j] < params::kTempoMinBpm || p.bpm[j] > params::kTempoMaxBpm) continue;
    // Parabolic interpolation on the log-BPM grid.
    const double a = p.comb[j - 1], b = c, cc = p.comb[j + 1];
    const double den = a - 2 * b + cc;
    const double off = den < 0.0 ? 0.5 * (a - cc) / den : 0.0;
    const double bpm = p.bpm[j] * std::pow(params::kTempoGridRatio, off);
    peaks.push_back({bpm, c, c * Prior(bpm)});
  }
  if (peaks.empty()) return std::nullopt;
  std::sort(peaks.begin(), peaks.end(), [](const Peak& l, const Peak& r) { return l.weighted > r.weighted; });

  // A level's comb (at its own peak, within 2 %) weighted by the prior.
  auto weighted = [&](double bpm) {
    return bpm < params::kTempoSearchMinBpm || bpm > params::kTempoSearchMaxBpm
               ? 0.0
               : std::max(0.0, LocalComb(p.acf, fr, bpm, harmonics)) * Prior(bpm);
  };
  // Makes `bpm` the answer: the comb peak within 3 % of it, or a new one.
  auto promote = [&](double bpm) {
    std::size_t i = 1;
    while (i < peaks.size() && std::abs(peaks[i].bpm / bpm - 1) >= 0.03) ++i;
    if (i == peaks.size()) {
      const double c = LocalComb(p.acf, fr, bpm, harmonics);
      peaks.push_back({bpm, c, c * Prior(bpm)});
    }
    std::swap(peaks[0], peaks[i]);
  };
  // How strong the events half-way between the beats of `bpm` are against
  // the beats themselves (~1 for a homogeneous pulse at twice the tempo).
  auto half_share = [&](double bpm) {
    const double per = 60.0 * fr / bpm;
    const double comb = Comb(p.acf, per, harmonics);
    return comb > 0.0 ? HalfComb(p.acf, per, harmonics) / comb : 0.0;
  };
  // Whether the winner has events half-way between its beats that neither
  // the doubling nor the compound step below took as the beat: the comb is
  // then torn between it and its double, and a weaker backbeat settles it.
  bool tatum_at_half = false;
  {
    const double m = half_share(peaks[0].bpm);
    if (m >= params::kTempoHomogeneousRatio && 2 * peaks[0].bpm <= params::kTempoHomogeneousMaxBpm) {
      // Half-period events as strong as the beats: the winner is an
      // aggregate of a faster, homogeneous pulse (clicks, quarter-note hats
      // at a fast tempo), and the beat is that pulse, up to where people
      // still tap every event.
      for (std::size_t i = 1; i < peaks.size(); ++i) {
        if (std::abs(peaks[i].bpm / (2 * peaks[0].bpm) - 1) < 0.03) {
          std::swap(peaks[0], peaks[i]);
          break;
        }
      }
    } else if (m >= params::kTempoCompoundMinHalf) {
      // A tatum at half the period that is not itself the beat: the winner
      // groups it in twos. Where its accents recur every three instead
      // (6/8), the beat is the group of three, whichever of the two the
      // prior preferred.
      const double triple = 2.0 * peaks[0].bpm / 3.0;
      if (triple >= params::kTempoMinBpm && LocalComb(p.acf, fr, triple, harmonics) >=
                                                params::kTempoCompoundMinRatio * LocalComb(p.acf, fr, peaks[0].bpm, harmonics)) {
        promote(triple);
      } else {
        tatum_at_half = true;
      }
    }
  }
  // How clearly the backbeat marks the chosen level (0 without one).
  double backbeat = 0.0;
  {
    // Backbeat: where a kick and a snare alternate, the beat is the period
    // between them (the snare marks 2 and 4), whatever the prior prefers.
    double low2 = 0.0, high2 = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      low2 += static_cast<double>(low_flux_[i]) * low_flux_[i];
      high2 += static_cast<double>(high_flux_[i]) * high_flux_[i];
    }
    // Both kinds of event must be there: a click track or a pattern of hats
    // alone leaves only leakage in the kick's bands.
    const bool has_kick = low2 >= params::kTempoKickMinShare * params::kTempoKickMinShare * high2;
    const std::vector<double> kick = has_kick ? Condition(low_flux_, fr) : std::vector<double>{};
    // Where the bright onsets are noise-like enough for a drum kit, the snare
    // is the broadband envelope; otherwise there is no snare to single out
    // and the bright bands as a whole (the upper register against the bass:
    // oom-pah) are what alternates, if anything does.
    const std::vector<float>& bright = drum_kit ? snare_flux_ : high_flux_;
    const std::vector<double> snare = has_kick ? Condition(bright, fr) : std::vector<double>{};
    if (!kick.empty() && !snare.empty()) {
      const std::vector<double> ks = Smooth(kick), ss = Smooth(snare);
      const double base = peaks[0].bpm;
      const double levels[4] = {0.5 * base, base, 2.0 * base, 3.0 * base};
      double alt[4] = {0.0, 0.0, 0.0, 0.0};  // best alternation per level, 0 when out of range
      for (int l = 0; l < 4; ++l) {
        if (levels[l] < params::kTempoMinBpm || levels[l] > params::kTempoHomogeneousMaxBpm) continue;
        // Only a level with a pulse of its own can be the beat, whatever
        // alternates at its period (a string piece's bass against its
        // melody reads as a waltz at three times a near-silent level).
        if (l != 1 && weighted(levels[l]) < params::kTempoBackbeatMinComb * peaks[0].weighted) continue;
        for (int beats : {2, 3}) {
          // Three times the answer is only ever the beat of a waltz read at the bar.
          if (l == 3 && beats == 2) continue;
          alt[l] = std::max(alt[l], Alternation(ks, ss, 60.0 * fr / levels[l], beats));
        }
      }
      const int best = static_cast<int>(std::max_element(alt, alt + 4) - alt);
      const double best_level = levels[best];
      // A waltz alternates as much at its beat as at two beats (the 6-beat
      // cycle holds the same lags), so the winner must beat the answer's own
      // alternation, not just zero.
      const double needed = best == 2 && tatum_at_half ? params::kTempoBackbeatTatumMin : params::kTempoBackbeatMin;
      const int chosen = best != 1 && alt[best] - alt[1] >= needed ? best : 1;
      double others = 0.0;
      for (int l = 0; l < 4; ++l) {
        if (l != chosen) others = std::max(others, alt[l]);
      }
      backbeat = std::clamp((alt[chosen] - others) / params::kTempoBackbeatFull, 0.0, 1.0);
      if (chosen != 1) promote(best_level);
    }
  }
  // Refine the winner with every comb multiple that fits.
  double best_bpm = peaks[0].bpm;
  {
    const int all = std::max(harmonics, static_cast<int>((p.acf.size() - 1) / (60.0 * fr / best_bpm)));
    const int k_max = std::min(all, 16);
    double best = -1e9, arg = best_bpm;
    for (double r = 0.985; r <= 1.015; r += 0.0002) {
      const double v = Comb(p.acf, 60.0 * fr / (peaks[0].bpm * r), k_max);
      if (v > best) {
        best = v;
        arg = peaks[0].bpm * r;
      }
    }
    best_bpm = arg;
  }

  TempoEstimate out;
  out.bpm = best_bpm;
  double total = 0.0;
  for (const Peak& pk : peaks) total += pk.weighted;
  for (const Peak& pk : peaks) {
    if (static_cast<int>(out.candidates.size()) >= params::kTempoCandidates) break;
    bool dup = false;
    for (const TempoCandidate& c : out.candidates) dup = dup || std::abs(c.bpm / pk.bpm - 1.0) < 0.04;
    if (dup) continue;
    out.candidates.push_back({out.candidates.empty() ? best_bpm : pk.bpm, pk.weighted / total});
  }

  // Confidence (see tempo.h): clarity of the pulse, margin of the chosen
  // metrical level over its relatives, whether the double tempo is a viable
  // reading too, and how much music there was.
  const double comb = std::max(0.0, LocalComb(p.acf, fr, best_bpm, harmonics));
  const double clarity = comb / (comb + params::kTempoClarityHalfComb);
  double rival = 0.0;
  for (double q : {0.5, 2.0, 1.0 / 3.0, 3.0, 2.0 / 3.0, 1.5}) rival = std::max(rival, weighted(best_bpm * q));
  const double own = weighted(best_bpm);
  const double level = own > 0.0 ? std::clamp(1.0 - rival / own, 0.0, 1.0) : 0.0;
  // The double is a reading listeners give up to where the doubling step
  // stops, and, where the pulse is homogeneous (off-beats as strong as the
  // beats: a skank, eighth hats), up to the fastest tempo we report: the
  // doubling keeps the slower reading above kTempoHomogeneousMaxBpm, but
  // people tap the faster one too (GTZAN labels reggae and disco at 207 and
  // 227 BPM).
  const double double_bpm = 2.0 * best_bpm;
  const bool double_tapped =
      double_bpm <= params::kTempoHomogeneousMaxBpm ||
      (double_bpm <= params::kTempoMaxBpm && half_share(best_bpm) >= params::kTempoHomogeneousRatio);
  const double doubled =
      double_tapped && comb > 0.0 ? std::clamp(LocalComb(p.acf, fr, double_bpm, harmonics) / comb, 0.0, 1.0) : 0.0;
  const double length = 1.0 - std::exp(-seconds / params::kTempoEvidenceSeconds);
  // A backbeat that marks the level settles what the comb leaves open.
  const double settled = std::max(level, backbeat);
  const double ambiguous = doubled * (1.0 - backbeat);
  out.confidence = std::clamp(
      clarity * (0.5 + 0.5 * settled) * (1.0 - params::kTempoDoubleAmbiguityWeight * ambiguous) * length, 0.0, 1.0);

  // Beats: Ellis (2007) dynamic programming on the equalised envelope.
  const double period = 60.0 * fr / best_bpm;
  const std::size_t lo = std::max<std::size_t>(1, static_cast<std::size_t>(std::floor(period / 2)));
  const std::size_t hi = static_cast<std::size_t>(std::ceil(period * 2));
  std::vector<double> score(n), local_score(n);
  std::vector<long> back(n, -1);
  for (std::size_t i = 0; i < n; ++i) local_score[i] = std::max(0.0, x[i]);
  std::vector<double> penalty(hi + 1, 0.0);
  for (std::size_t tau = lo; tau <= hi; ++tau) {
    const double lr = std::log(static_cast<double>(tau) / period);
    penalty[tau] = params::kTempoBeatTightness * lr * lr;
  }
  for (std::size_t t = 0; t < n; ++t) {
    double best = 0.0;
    long arg = -1;
    for (std::size_t tau = lo; tau <= hi && tau <= t; ++tau) {
      const double v = score[t - tau] - penalty[tau];
      if (arg < 0 || v > best) {
        best = v;
        arg = static_cast<long>(t - tau);
      }
    }
    score[t] = local_score[t] + (arg >= 0 ? std::max(best, 0.0) : 0.0);
    back[t] = arg >= 0 && best > 0.0 ? arg : -1;
  }
  const std::size_t tail = std::min(n, static_cast<std::size_t>(std::ceil(period)));
  std::size_t last = n - 1;
  for (std::size_t t = n - tail; t < n; ++t) {
    if (score[t] > score[last]) last = t;
  }
  std::vector<double> beats;
  for (long t = static_cast<long>(last); t >= 0; t = back[t]) beats.push_back(t / fr);
  std::reverse(beats.begin(), beats.end());
  out.beat_times_s = std::move(beats);
  return out;
}

}  // namespace trackscan::dsp
