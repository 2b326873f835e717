// Copyright 2026 The timingwheel Authors.
//
// fire_queue.h
// -----------------------------------------------------------------------------
//
// The tasks a scheduler's wheel found due, waiting for the fire statement,
// and the room each kind has for running attempts. This file defines:
//
//   * `KindTable`: a scheduler's kinds by index (0 is the default kind,
//     then `DurableOptions::kinds` in order, then one index for kinds this
//     scheduler has no handler for).
//   * `FireQueue`: the waiting tasks and the attempts in flight per kind.
//     `Take()` hands out a batch to fire: highest priority first (ties in
//     the order they became due), skipping tasks whose kind is at its
//     limit (they keep their place; other kinds are not held up).
//
// Thread safety: thread-compatible (the scheduler calls it under its mutex).
// Tested by FireQueueTest.*.

#ifndef TIMINGWHEEL_DURABLE_ENGINE_FIRE_QUEUE_H_
#define TIMINGWHEEL_DURABLE_ENGINE_FIRE_QUEUE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "durable/sql/store.h"
#include "durable/task_kind.h"

namespace timingwheel {
namespace durable_internal {

class KindTable {
 public:
  // `default_handler` may be empty (tasks of the default kind are then of
  // an unknown kind here). The kinds' names must be unique and non-empty.
  KindTable(DurableHandler default_handler, absl::Span<const TaskKind> kinds);

  // The index of `name`; `unknown()` for a kind without a handler here.
  int IndexOf(absl::string_view name) const;
  int unknown() const { return static_cast<int>(handlers_.size()) - 1; }
  int size() const { return static_cast<int>(handlers_.size()); }
  // Null for `unknown()` (and for the default kind without a handler).
  const DurableHandler& handler(int index) const { return handlers_[index]; }
  // 0: no limit of its own.
  int limit(int index) const { return limits_[index]; }
  // The named kinds (for registering them in the store).
  std::vector<std::string> names() const;
  // The kinds with a handler here by name ("" for the default kind when it
  // has one), name -> index.
  const absl::flat_hash_map<std::string, int>& handled() const {
    return by_name_;
  }

 private:
  absl::flat_hash_map<std::string, int> by_name_;
  std::vector<DurableHandler> handlers_;
  std::vector<int> limits_;
};

class FireQueue {
 public:
  struct Waiting {
    WheelEntry entry;  // entry.kind is not kept: see `kind`.
    int kind = 0;      // KindTable index.
  };

  // `max_in_flight`: the scheduler's limit; `kinds`: the per-kind ones.
  FireQueue(int max_in_flight, const KindTable& kinds);

  void Push(Waiting waiting);
  // Puts a batch taken back at the front (the fire failed), undoing its
  // reservation.
  void PutBack(std::vector<Waiting> batch);
  // Removes the waiting tasks `drop` says to drop (their slots were lost).
  void RemoveIf(const std::function<bool(const Waiting&)>& drop);
  // Removes the waiting tasks of `id` (stale: the id is in the wheel again,
  // perhaps of another kind after a replacement).
  void RemoveId(const std::string& id);

  // Whether a batch should be fired now: there is a free place (`in_flight`
  // attempts run now) and a waiting task whose kind has room. A free place
  // never waits for room for a bigger batch: the batch is what is waiting
  // (FireQueueTest.OneFreePlaceFiresAtOnce,
  // CapacityTest.AFreePlaceStartsADueTaskWhileTheOthersAreBusy).
  bool Ready(int64_t in_flight) const;
  // Up to `max` waiting tasks that fit the room left (`in_flight` attempts
  // run now), reserving a place in their kinds for each.
  std::vector<Waiting> Take(int64_t in_flight, size_t max);
  // Reserves a place in `kind` for an attempt (`Take()` does it for what it
  // hands out).
  void Reserve(int kind) { ++taken_[kind]; }
  // An attempt of `kind` reserved for has ended (or was not started).
  void Release(int kind);
  // How many more attempts of `kind` may start now, by its own limit
  // (large: no limit of its own); the scheduler's limit is the caller's.
  int64_t Room(int kind) const { return KindRoom(kind); }

  size_t size() const { return waiting_.size(); }
  bool empty() const { return waiting_.empty(); }

 private:
  // How many more of `kind` may be taken (large: no limit of its own).
  int64_t KindRoom(int kind) const;
  void Count(const Waiting& w, int delta);

  const int max_in_flight_;
  std::vector<int> limits_;     // By kind; 0: none.
  std::vector<int64_t> taken_;  // By kind: reserved and not released.
  std::vector<int64_t> waiting_per_kind_;
  int64_t prioritized_ = 0;  // Waiting tasks with a priority other than 0.
  absl::flat_hash_map<std::string, int> ids_;  // Waiting tasks by id.
  std::vector<Waiting> waiting_;
};

}  // namespace durable_internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_ENGINE_FIRE_QUEUE_H_
