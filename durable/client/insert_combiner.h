// Copyright 2026 The timingwheel Authors.
//
// insert_combiner.h
// -----------------------------------------------------------------------------
//
// Group commit for inserts: calls that arrive while an insert statement is
// running wait, and the next statement carries the rows of all of them, so
// eight threads calling `Schedule()` at once pay for a few statements, not
// eight. This file defines:
//
//   * `InsertCombiner`: runs concurrent inserts as shared statements and
//     hands each call the answer it would have had alone.
//
// Tests: tests/durable/insert_combiner_test.cc.

#ifndef TIMINGWHEEL_DURABLE_CLIENT_INSERT_COMBINER_H_
#define TIMINGWHEEL_DURABLE_CLIENT_INSERT_COMBINER_H_

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "durable/sql/store.h"
#include "timer/internal/mutex.h"

namespace timingwheel {
namespace durable_internal {

// InsertCombiner
//
// `Insert()` runs `run` for the rows of this call together with the rows of
// the calls waiting beside it (the same inserter, at most `max_rows` in all;
// one call larger than that runs alone). One caller at a time runs a
// statement (the leader, on its own thread); the others wait until their
// answers are in. Each call gets the answer it would have got alone:
//   * a shared statement that succeeds gives each call its own ids' entries
//     (`mine`, `identical`) and the statement's clock;
//   * one that fails with Unavailable (the connection is lost, `run` having
//     retried as it does alone) gives every call of the group that status:
//     as alone, the rows may or may not have been written;
//   * any other failure (an id that exists with other content, an unknown
//     kind) wrote nothing, and each call of the group runs alone, in order.
// Calls with another inserter wait for a statement of their own.
//
// Thread-safe: any thread may call `Insert()`; `run` is called by one
// thread at a time.
class InsertCombiner {
 public:
  using Run = std::function<absl::StatusOr<InsertResult>(
      const Inserter&, absl::Span<const InsertRow>)>;

  explicit InsertCombiner(size_t max_rows = 1000) : max_rows_(max_rows) {}

  InsertCombiner(const InsertCombiner&) = delete;
  InsertCombiner& operator=(const InsertCombiner&) = delete;

  absl::StatusOr<InsertResult> Insert(const Inserter& inserter,
                                      absl::Span<const InsertRow> rows,
                                      const Run& run);

  // Calls waiting for a statement (not counting one running). For tests
  // that hold a statement open while others arrive.
  size_t waiting() const;

 private:
  struct Call {
    const Inserter* inserter;
    absl::Span<const InsertRow> rows;
    absl::StatusOr<InsertResult> result;
    bool done = false;
  };

  // Takes the next group off the queue (the first call and the later ones
  // of its inserter that fit).
  std::vector<Call*> TakeGroup() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Runs `group` (the lock not held) and fills in each call's result.
  static void RunGroup(const std::vector<Call*>& group, const Run& run);

  const size_t max_rows_;
  mutable internal::Mutex mu_;
  std::condition_variable done_cv_;
  std::deque<Call*> queue_ ABSL_GUARDED_BY(mu_);
  bool leading_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace durable_internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_CLIENT_INSERT_COMBINER_H_
