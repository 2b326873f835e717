// Copyright 2026 The timingwheel Authors.
//
// attempt_tracker.h
// -----------------------------------------------------------------------------
//
// What a scheduler knows of the attempts it fired and has not yet recorded.
// This file defines:
//
//   * `AttemptTracker`: the attempts in flight by slot and by id, the stop
//     flags of the handlers running now, and the start marks not yet
//     written.
//
// Tests: tests/durable/attempt_tracker_test.cc.

#ifndef TIMINGWHEEL_DURABLE_ENGINE_ATTEMPT_TRACKER_H_
#define TIMINGWHEEL_DURABLE_ENGINE_ATTEMPT_TRACKER_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "durable/sql/store_api.h"

namespace timingwheel {
namespace durable_internal {

// AttemptTracker
//
// Promises:
//   * A slot is idle (`SlotIdle()`, not in `BusySlots()`) only when every
//     attempt fired in it has ended: a slot with a handler running is never
//     released.
//   * `RunningIds()` names each id with an attempt in flight once; an id
//     fired again (a newer version, after a takeover re-stamped its row)
//     stays named until its newest attempt ends, whatever order the
//     attempts end in.
//   * A stop flag is forgotten only by the handler it belongs to
//     (`HandlerReturned()` with a flag of a later attempt of the same id
//     leaves that one registered).
//   * A stop names an attempt (id and row version): it reaches that
//     attempt's handler, or is kept for it when heard after the fire and
//     before the handler started (`TakePendingStop()`); never a later
//     attempt of the same id.
//   * Start marks are taken in the order they were queued; marks put back
//     after a failed write come before the ones queued since.
//
// Thread-compatible: the scheduler calls it only under its own mutex.
class AttemptTracker {
 public:
  using StopFlag = std::shared_ptr<std::atomic<bool>>;

  // An attempt of `id` (row version `version`) was fired in `slot`.
  void Fired(const std::string& id, int64_t version, int slot);

  // The attempt of `id` under `version` in `slot` ended (recorded, or
  // abandoned before its handler started).
  void Ended(const std::string& id, int64_t version, int slot);

  // Whether no attempt fired in `slot` is in flight.
  bool SlotIdle(int slot) const;

  // The slots with attempts in flight.
  absl::flat_hash_set<int> BusySlots() const;

  // The ids with attempts in flight.
  std::vector<std::string> RunningIds() const;

  // Whether an attempt of `id` is in flight.
  bool Running(const std::string& id) const { return running_.contains(id); }

  // The newest attempt in flight of each id, with its row's version.
  std::vector<LiveAttempt> RunningAttempts() const;

  // The handler of `mark`'s attempt starts: registers its stop flag and
  // queues its start mark. Returns whether the mark queue was empty before
  // (the writer must be woken).
  bool HandlerStarted(StartMark mark, StopFlag stop_flag);

  // The handler of `id` holding `stop_flag` returned.
  void HandlerReturned(const std::string& id, const StopFlag& stop_flag);

  // Raises the stop flag of the running handler of `id`'s attempt under
  // row version `version` (0: whatever attempt of `id`); for that attempt
  // fired and its handler not started yet, keeps the stop for it
  // (`TakePendingStop()`). Returns whether such an attempt is in flight.
  bool RaiseStop(const std::string& id, int64_t version = 0);

  // Whether a stop came for `id`'s attempt under `version` before its
  // handler started (and forgets it). A stop kept for an attempt is
  // forgotten when the attempt ends.
  bool TakePendingStop(const std::string& id, int64_t version);

  // The queued start marks, oldest first; the queue is empty after.
  std::vector<StartMark> TakeMarks();

  // Puts `marks` (taken, not written) back before the ones queued since.
  void PutBackMarks(std::vector<StartMark> marks);

  bool marks_empty() const { return marks_.empty(); }

 private:
  absl::flat_hash_map<int, int> running_per_slot_;
  // id -> the newest attempt's version.
  absl::flat_hash_map<std::string, int64_t> running_;
  struct RunningHandler {
    StopFlag flag;
    int64_t version = 0;
  };
  absl::flat_hash_map<std::string, RunningHandler> stop_flags_;
  // id -> the version of the attempt a stop is kept for.
  absl::flat_hash_map<std::string, int64_t> stops_pending_;
  std::vector<StartMark> marks_;
};

}  // namespace durable_internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_ENGINE_ATTEMPT_TRACKER_H_
