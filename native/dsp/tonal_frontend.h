// Tonal front end shared by the key and tuning estimators: one STFT at
// params::kAnalysisRateHz, spectral peaks, and the two summaries kept from
// them, so memory stays bounded whatever the length of the input.
//
// Per frame (params::kTonalFrameSize samples, Hann, hop kTonalHopSize):
//   1. local maxima of the magnitude spectrum that stand params::
//      kTonalPeakOverFloorDb above the local geometric-mean floor (a
//      whitening that makes each partial's weight independent of level and of
//      the spectral tilt of the mix);
//   2. each peak's frequency refined to a small fraction of a bin with the
//      exact two-bin ratio estimator of a sinusoid under a Hann window
//      (Grandke 1983, "Interpolation algorithms for discrete Fourier
//      transforms of weighted signals");
//   3. its pitch in cents from A4 = 440 Hz goes into
//      - a 100-bin histogram of offsets from the equal-tempered grid (tuning),
//      - a 120-bin (10-cent) pitch-class histogram, split into bass and treble
//        bands, per time segment (key). Pitch classes are folded only later,
//        once the tuning is known, which is what makes the key tuning-aware.
//
// Segments hold params::kTonalSegmentFrames frames; when there would be more
// than kTonalMaxSegments, neighbours are merged pairwise, so a long input
// keeps coarser segments rather than more of them.
//
// The final chord: the last kTonalEndingFrames audible frames are kept with
// their level and chroma. At Finish, if the input ends by letting one chord
// ring out (the last of those frames within kTonalEndingMinLevelDb of the
// median level is followed by a fall of kTonalEndingDecayDb or more, with
// no frame rising by more than kTonalEndingMaxRiseDb), the chroma of that
// frame, the one before and the ring-out is kept. An excerpt cut
// mid-music, a fade-out over moving harmony (new onsets raise the level) or
// a held synth chord that stops dead does not qualify.
#ifndef TRACKSCAN_DSP_TONAL_FRONTEND_H_
#define TRACKSCAN_DSP_TONAL_FRONTEND_H_

#include <array>
#include <complex>
#include <cstddef>
#include <vector>

#include "real_fft.h"
#include "status.h"

namespace trackscan::dsp {

inline constexpr int kTuningHistogramBins = 100;  // 1 cent each, offset 0..99 cents above the A440 grid
inline constexpr int kFineChromaBins = 120;       // 10 cents each, bin 0 centred on A (440 Hz grid)

struct TonalSegment {
  std::array<float, kFineChromaBins> bass{};    // peaks from kTonalBassMinHz to kTonalBassMaxHz
  std::array<float, kFineChromaBins> treble{};  // peaks from kTonalBassMaxHz to kTonalChromaMaxHz
  double frames = 0;                            // frames summed into this segment
};

struct TonalFeatures {
  // Peak weight by offset from the A440 equal-tempered grid; bin i is centred
  // on i cents (weights are split linearly between the two nearest bins).
  std::array<double, kTuningHistogramBins> tuning_histogram{};
  std::vector<TonalSegment> segments;  // in time order, at most kTonalMaxSegments
  // Treble peaks (as in TonalSegment::treble) that are no overtone of a lower
  // partial (none near f/3, f/5, f/7), over the whole input. The 5th harmonic
  // of a note sits a major third above it, on a pitch class that may not be
  // in the key; cues that hang on one such pitch class read this instead.
  std::array<float, kFineChromaBins> treble_fundamentals{};
  // The chord the input rings out on (see above): frames == 0 when it does
  // not end that way.
  TonalSegment final_chord;
  double frames = 0;                   // frames analysed
  double tonal_frames = 0;             // frames with at least kTonalMinFramePeaks peaks
  double peak_weight = 0;              // total weight of all peaks, tuning band
};

class TonalFrontend {
 public:
  static Result<TonalFrontend> Create(double sample_rate_hz);

  // Any chunk size; results do not depend on how the input is split.
  void Process(const float* mono, std::size_t n);

  // Analyses the last, zero-padded frame. Idempotent; Process() must not be
  // called afterwards.
  void Finish();

  const TonalFeatures& features() const { return features_; }

 private:
  TonalFrontend(double sample_rate_hz, RealFft fft);
  void AnalyseFrame();
  void FindFinalChord();

  double sample_rate_hz_;
  RealFft fft_;
  std::vector<float> window_;                  // Hann, kTonalFrameSize
  std::vector<float> buffer_;                  // last kTonalFrameSize input samples
  std::size_t new_samples_ = 0;                // samples since the last frame ended, < kTonalHopSize
  std::size_t segment_frames_;                 // frames per segment, doubles on merging
  bool finished_ = false;
  std::vector<float> frame_;                   // scratch: windowed frame
  std::vector<std::complex<float>> spectrum_;  // scratch
  std::vector<float> log_mag_;                 // scratch: ln |X|
  std::vector<double> prefix_;                 // scratch: prefix sums of log_mag_
  struct Peak {
    double freq_hz;
    double cents;   // from A4 = 440 Hz
    double weight;  // nepers above the peak threshold, plus an offset
  };
  std::vector<Peak> peaks_;                    // scratch: this frame's peaks, ascending
  struct LevelledFrame {
    double level_db;     // dBFS of the tonal band
    TonalSegment chroma;  // this frame's peaks (frames = 1)
  };
  std::vector<LevelledFrame> recent_;          // ring of the last kTonalEndingFrames audible frames
  std::size_t recent_next_ = 0;                // ring position of the next frame to write
  std::array<double, 100> level_counts_{};     // audible frames per 1 dB of level, from kTonalEndingFloorDbfs
  TonalFeatures features_;
};

}  // namespace trackscan::dsp

#endif  // TRACKSCAN_DSP_TONAL_FRONTEND_H_
