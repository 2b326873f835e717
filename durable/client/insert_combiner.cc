// Copyright 2026 The timingwheel Authors.

#include "durable/client/insert_combiner.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"

namespace timingwheel {
namespace durable_internal {
namespace {

bool SameInserter(const Inserter& a, const Inserter& b) {
  return a.node_id == b.node_id && a.horizon_us == b.horizon_us &&
         a.slot_count == b.slot_count;
}

}  // namespace

absl::StatusOr<InsertResult> InsertCombiner::Insert(
    const Inserter& inserter, absl::Span<const InsertRow> rows,
    const Run& run) {
  Call call{&inserter, rows, InsertResult()};
  internal::MutexLock lock(mu_);
  queue_.push_back(&call);
  while (!call.done) {
    if (leading_) {
      done_cv_.wait(lock.native());
      continue;
    }
    // Lead one statement (maybe not holding this call: an earlier one waits
    // first); the loop leads again until this call is answered.
    leading_ = true;
    std::vector<Call*> group = TakeGroup();
    lock.Unlock();
    RunGroup(group, run);
    lock.Lock();
    for (Call* c : group) c->done = true;
    leading_ = false;
    done_cv_.notify_all();
  }
  return std::move(call.result);
}

size_t InsertCombiner::waiting() const {
  internal::MutexLock lock(mu_);
  return queue_.size();
}

std::vector<InsertCombiner::Call*> InsertCombiner::TakeGroup() {
  std::vector<Call*> group;
  size_t rows = 0;
  for (auto it = queue_.begin(); it != queue_.end();) {
    Call* c = *it;
    const bool fits =
        group.empty() || (SameInserter(*c->inserter, *group[0]->inserter) &&
                          rows + c->rows.size() <= max_rows_);
    if (!fits) {
      ++it;
      continue;
    }
    group.push_back(c);
    rows += c->rows.size();
    it = queue_.erase(it);
    if (rows >= max_rows_) break;
  }
  return group;
}

void InsertCombiner::RunGroup(const std::vector<Call*>& group, const Run& run) {
  const Inserter& inserter = *group[0]->inserter;
  if (group.size() == 1) {
    group[0]->result = run(inserter, group[0]->rows);
    return;
  }
  std::vector<InsertRow> merged;
  absl::flat_hash_map<std::string, Call*> owner;
  for (Call* c : group) {
    for (const InsertRow& row : c->rows) {
      merged.push_back(row);
      owner.emplace(row.id, c);  // A repeated id stays with the first call.
    }
  }
  absl::StatusOr<InsertResult> shared = run(inserter, merged);
  if (shared.ok()) {
    for (Call* c : group) {
      InsertResult own;
      own.db_now_us = shared->db_now_us;
      c->result = std::move(own);
    }
    for (WheelEntry& e : shared->mine) {
      Call* c = owner.at(e.id);
      c->result->mine.push_back(std::move(e));
    }
    for (WheelEntry& e : shared->identical) {
      Call* c = owner.at(e.id);
      c->result->identical.push_back(std::move(e));
    }
    return;
  }
  if (absl::IsUnavailable(shared.status())) {
    for (Call* c : group) c->result = shared.status();
    return;
  }
  // Nothing was written: give each call its own answer.
  for (Call* c : group) c->result = run(inserter, c->rows);
}

}  // namespace durable_internal
}  // namespace timingwheel
