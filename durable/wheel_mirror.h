// Copyright 2026 The timingwheel Authors.
//
// wheel_mirror.h
// -----------------------------------------------------------------------------
//
// The claimed tasks a scheduler holds in its in-process `Timer`. This file
// defines:
//
//   * `WheelMirror`: the tasks in the timer, one per id, and the ones a
//     full timer refused (the overflow), kept until there is room.
//
// Tests: tests/durable/wheel_mirror_test.cc.

#ifndef TIMINGWHEEL_DURABLE_WHEEL_MIRROR_H_
#define TIMINGWHEEL_DURABLE_WHEEL_MIRROR_H_

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "durable/mirror_task.h"
#include "durable/store_api.h"
#include "timer/clock.h"
#include "timer/timer.h"

namespace timingwheel {
namespace durable_internal {

// WheelMirror
//
// Promises:
//   * At most one timer per id: adding an id again cancels the timer it
//     had (`WheelMirrorTest.AddingAnIdAgainReplacesItsTimer`).
//   * `TakeFired()` accepts a due task only if it is the one held for its
//     id, and forgets it: a task cancelled, replaced or dropped after it
//     came due is not fired (`WheelMirrorTest.AStaleFireIsRefused`).
//   * An entry the timer refuses as full (ResourceExhausted, from
//     `TimerOptions::max_pending`) is kept in the overflow in arrival
//     order, with its due time on the timer's clock, until the caller
//     takes it back (`WheelMirrorTest.AFullTimerKeepsTheEntryInTheOverflow`).
//   * `DropSlots()` forgets the slots' tasks in the timer (cancelled) and
//     in the overflow (`WheelMirrorTest.DroppingSlotsForgetsTheirTasks`).
//
// Thread-compatible: the scheduler calls it under its own mutex (the
// timer itself is thread-safe and may fire meanwhile).
class WheelMirror {
 public:
  enum class Added {
    kInTimer,
    kFull,    // Kept in the overflow.
    kClosed,  // The timer is shut down: nothing kept.
  };
  // An entry a full timer refused, with its due time on the timer's clock.
  using Overflowed = std::pair<WheelEntry, int64_t>;

  // `timer`, `clock` (the timer's) and `router` must outlive the mirror.
  WheelMirror(Timer* timer, Clock* clock, const MirrorTask::Router* router)
      : timer_(timer), clock_(clock), router_(router) {}

  // Puts `entry` in the timer, due at `local_due_nanos` on the timer's
  // clock (at once when that has passed), `kind` its KindTable index.
  Added Add(const WheelEntry& entry, int16_t kind, int64_t local_due_nanos);

  // Cancels `id`'s timer. Returns whether one was held.
  bool Cancel(absl::string_view id);

  // `task` came due: true (and forgotten: the timer holds it until it has
  // run) if it is the task held for its id.
  bool TakeFired(const MirrorTask* task);

  // Forgets the tasks of `slots`, in the timer and in the overflow.
  void DropSlots(const absl::flat_hash_set<int>& slots);

  // The overflow, oldest first; it is empty after.
  std::vector<Overflowed> TakeOverflow();

  // Appends `entries` to the overflow.
  void KeepInOverflow(std::vector<Overflowed> entries);

  // Forgets everything (the timer was shut down).
  void Clear();

  size_t size() const { return in_timer_.size(); }
  size_t overflow_size() const { return overflow_.size(); }

 private:
  Timer* const timer_;
  Clock* const clock_;
  const MirrorTask::Router* const router_;
  MirrorSet in_timer_;
  std::vector<Overflowed> overflow_;
};

}  // namespace durable_internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_WHEEL_MIRROR_H_
