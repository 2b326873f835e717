// Copyright 2026 The timingwheel Authors.
//
// timer_model.h
// -----------------------------------------------------------------------------
//
// A model-based checker of `Timer`: steps (add, cancel, advance the clock,
// shut down) are applied both to the real wheel (a `MockTimer` with a small
// tick and wheel so that several levels are exercised) and to a trivially
// correct reference (a sorted `std::multimap` of due time -> task slot).
// After every step the same tasks must have run, none early, none twice,
// none lost, and the timer's metrics must match the reference's counts.
// Shared by tests/timer/timer_model_test.cc (random steps from fixed seeds)
// and the libFuzzer target tests/fuzz/timer_model_fuzz.cc (steps decoded
// from the fuzzer's bytes). This file defines:
//
//   * `ModelOptions`: the wheel's shape and the number of task slots.
//   * `Step`: one operation, and `StepDecoder`, which turns bytes into steps.
//   * `TimerModel`: the real timer, the reference, and the checker.

#ifndef TIMINGWHEEL_TESTS_TIMER_MODEL_TIMER_MODEL_H_
#define TIMINGWHEEL_TESTS_TIMER_MODEL_TIMER_MODEL_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "timer/testing/mock_timer.h"
#include "timer/timer.h"

namespace timingwheel {
namespace model {

// ModelOptions
//
// The shape of the wheel under test and how many task objects the steps
// choose from (a slot's task is reused: adding it again while pending moves
// it, after it ran or was cancelled schedules it anew).
struct ModelOptions {
  absl::Duration tick = absl::Nanoseconds(10);
  int64_t wheel_size = 4;
  int num_slots = 32;
  // Whether `StepDecoder` may produce shutdown steps.
  bool allow_shutdown = true;
};

// Step
//
// One operation on the timer.
struct Step {
  enum class Kind {
    kAdd,            // Add (or move, or re-add) slot `slot` with `delay`.
    kCancel,         // Cancel slot `slot`.
    kAdvance,        // Advance the clock by `advance` and run what is due.
    kAdvanceToNext,  // Advance to the earliest pending due time, minus
                     // `advance` (0 or 1 ns): hits deadlines exactly.
    kShutdown,       // Shut the timer down.
  };
  Kind kind = Kind::kAdvance;
  int slot = 0;
  absl::Duration delay;
  absl::Duration advance;

  std::string ToString() const;
};

// StepDecoder
//
// Turns bytes into steps: one byte picks the operation, one the slot, one
// the shape of the delay or advance (zero, negative, sub-tick, within a
// level, several levels, years, infinite, INT64_MAX nanoseconds), and four
// a value. Missing bytes read as zero. Deterministic.
class StepDecoder {
 public:
  StepDecoder(const uint8_t* data, size_t size, const ModelOptions& options)
      : data_(data), size_(size), options_(options) {}

  // StepDecoder::Next()
  //
  // Decodes the next step into `step`; false when the bytes are used up.
  bool Next(Step& step);

 private:
  uint8_t Byte();
  uint32_t Word();
  absl::Duration Delay(uint8_t shape, uint32_t value) const;
  absl::Duration Advance(uint8_t shape, uint32_t value) const;

  const uint8_t* const data_;
  const size_t size_;
  size_t pos_ = 0;
  const ModelOptions options_;
};

// TimerModel
//
// Applies steps to a `MockTimer` and to the reference and checks them
// against each other after every step. Not thread-safe.
class TimerModel {
 public:
  explicit TimerModel(const ModelOptions& options);
  ~TimerModel();
  TimerModel(const TimerModel&) = delete;
  TimerModel& operator=(const TimerModel&) = delete;

  // TimerModel::Apply()
  //
  // Applies `step` and checks the outcome. Returns an empty string if the
  // timer agrees with the reference, else a description of the mismatch.
  std::string Apply(const Step& step);

  // TimerModel::Finish()
  //
  // Shuts the timer down (unless a step did) and checks that it swept
  // exactly the tasks the reference holds. Returns an empty string or a
  // description of the mismatch.
  std::string Finish();

  // The number of tasks pending in the reference.
  size_t pending() const { return reference_.size(); }
  // The number of runs observed so far.
  int64_t runs() const { return total_runs_; }
  // The number of wheel levels the timer has created.
  int levels() const;

 private:
  class SlotTask;
  struct Run {
    int slot;
    int64_t at;
  };

  std::string Advance(int64_t nanos);
  std::string CheckMetrics() const;
  int64_t Now() const;

  const ModelOptions options_;
  std::unique_ptr<testing::MockTimer> mock_;
  std::vector<TaskPtr<SlotTask>> slots_;
  // The reference: due time -> slot, and each pending slot's entry.
  std::multimap<int64_t, int> reference_;
  std::vector<std::multimap<int64_t, int>::iterator> entry_;
  std::vector<bool> in_reference_;
  // Runs recorded by the tasks since the last check.
  std::vector<Run> runs_;
  bool shut_down_ = false;
  int64_t total_runs_ = 0;
  int64_t added_ = 0;
  int64_t cancelled_ = 0;
};

}  // namespace model
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TESTS_TIMER_MODEL_TIMER_MODEL_H_
