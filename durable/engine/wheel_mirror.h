// Copyright 2026 The timingwheel Authors.
//
// wheel_mirror.h
// -----------------------------------------------------------------------------
//
// The claimed tasks a scheduler holds in its in-process `Timer`. This file
// defines:
//
//   * `WheelMirror`: the tasks in the timer, one per id; with a bounded
//     timer, the earliest ones, and the rows to give back to the store.
//
// Tests: tests/durable/wheel_mirror_test.cc.

#ifndef TIMINGWHEEL_DURABLE_ENGINE_WHEEL_MIRROR_H_
#define TIMINGWHEEL_DURABLE_ENGINE_WHEEL_MIRROR_H_

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "durable/engine/mirror_task.h"
#include "durable/sql/store_api.h"
#include "timer/clock.h"
#include "timer/timer.h"

namespace timingwheel {
namespace durable_internal {

// WheelMirror
//
// Promises:
//   * At most one timer per id: adding an id again cancels the timer it
//     had (`WheelMirrorTest.AddingAnIdAgainReplacesItsTimer`), also when
//     the new entry is already due and kept nowhere
//     (`WheelMirrorTest.AnEntryAlreadyDueIsLeftToTheCaller`).
//   * `TakeFired()` accepts a due task only if it is the one held for its
//     id, and forgets it: a task cancelled, replaced or dropped after it
//     came due is not fired (`WheelMirrorTest.AStaleFireIsRefused`).
//   * A full timer (ResourceExhausted, from `TimerOptions::max_pending`)
//     holds the earliest rows: an entry due before the latest task in the
//     timer takes that task's place, and the task displaced (or the entry,
//     when it is not earlier) goes to the give-back list, for the caller
//     to give back to the store (PENDING again: a later load claims it)
//     (`FullWheelMirrorTest.AnEarlierEntryDisplacesTheLatestTask`).
//   * `DropSlots()` forgets the slots' tasks in the timer (cancelled) and
//     in the give-back list
//     (`WheelMirrorTest.DroppingSlotsForgetsTheirTasks`).
//
// Cost: with `keep_earliest` (a bounded timer), the tasks are also indexed
// by due time (about 48 more bytes each), so a displacement and
// `LatestDueUs()` take O(log max_pending); without it, nothing more is
// kept and `LatestDueUs()` scans the tasks.
//
// Thread-compatible: the scheduler calls it under its own mutex (the
// timer itself is thread-safe and may fire meanwhile).
class WheelMirror {
 public:
  enum class Added {
    kInTimer,    // (Perhaps displacing a later task: see given_back.)
    kGivenBack,  // The timer is full of earlier tasks.
    kClosed,     // The timer is shut down: nothing kept.
    kDueNow,     // Already due: nothing kept, the caller fires it.
  };

  // `timer`, `clock` (the timer's) and `router` must outlive the mirror.
  // `keep_earliest`: the timer is bounded (`TimerOptions::max_pending`).
  WheelMirror(Timer* timer, Clock* clock, const MirrorTask::Router* router,
              bool keep_earliest = false)
      : timer_(timer),
        clock_(clock),
        router_(router),
        keep_earliest_(keep_earliest) {}

  // Puts `entry` in the timer, due at `local_due_nanos` on the timer's
  // clock, `kind` its KindTable index. An entry already due is not put in
  // the timer (kDueNow): the caller hands it to the fire with the others
  // due, so the rows of one load wait for a place together and the
  // highest priority among them takes it (a timer would hand them over
  // one by one from its own thread).
  Added Add(const WheelEntry& entry, int16_t kind, int64_t local_due_nanos);

  // Cancels `id`'s timer. Returns whether one was held.
  bool Cancel(absl::string_view id);

  // `task` came due: true (and forgotten: the timer holds it until it has
  // run) if it is the task held for its id.
  bool TakeFired(const MirrorTask* task);

  // Forgets the tasks of `slots`, in the timer and in the give-back list.
  void DropSlots(const absl::flat_hash_set<int>& slots);

  // The latest due time (the store's microseconds) of the tasks in the
  // timer; 0 when it holds none.
  int64_t LatestDueUs() const;

  // The rows to give back to the store, oldest first; empty after.
  std::vector<WheelEntry> TakeGivenBack();

  // Appends `entries` to the give-back list (giving them back failed).
  void KeepGivenBack(std::vector<WheelEntry> entries);

  // Forgets everything (the timer was shut down).
  void Clear();

  size_t size() const { return in_timer_.size(); }
  size_t given_back_size() const { return given_back_.size(); }

 private:
  using ByDue = std::set<std::pair<int64_t, const MirrorTask*>>;

  // Forgets the task at `it` (and its place in by_due_).
  void Forget(MirrorSet::iterator it);
  // Appends `entry` to the give-back list.
  void GiveBack(const WheelEntry& entry);

  Timer* const timer_;
  Clock* const clock_;
  const MirrorTask::Router* const router_;
  const bool keep_earliest_;
  MirrorSet in_timer_;
  // With keep_earliest_: the tasks of in_timer_ by (due_us, task).
  ByDue by_due_;
  std::vector<WheelEntry> given_back_;
  // The ids in given_back_ (an Add() of one of them takes it out).
  absl::flat_hash_set<std::string> given_back_ids_;
};

}  // namespace durable_internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_ENGINE_WHEEL_MIRROR_H_
