// Copyright 2026 The timingwheel Authors.
//
// FakeStore's recurring schedules (schedule_store_api.h) over the
// FakeDatabase's schedule table. Each call runs under the database's
// mutex; a call that fails part-way puts the tables back as they were
// (`SaveLocked()`, `RestoreLocked()`), as a rolled-back transaction does.

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "durable/recurrence/occurrence_id.h"
#include "durable/recurrence/recurrence.h"
#include "durable/recurrence/schedule_plan.h"
#include "durable/sql/schedule_definition.h"
#include "durable/testing/fake_store.h"
#include "durable/testing/fake_store_internal.h"

namespace timingwheel {
namespace durable_testing {

using durable_internal::AdvancePlan;
using durable_internal::CompleteAndAdvanceResult;
using durable_internal::Completion;
using durable_internal::Inserter;
using durable_internal::InsertResult;
using durable_internal::InsertRow;
using durable_internal::PriorOccurrence;

using durable_internal::ScheduleWrite;
using Schedule = FakeDatabase::Schedule;

namespace {

durable_internal::StoredSchedule StoredOf(const Schedule& schedule) {
  durable_internal::StoredSchedule stored;
  stored.definition = schedule.definition;
  stored.paused = schedule.paused;
  stored.last_us = schedule.last_us;
  stored.next_us = schedule.next_us;
  stored.version = schedule.version;
  return stored;
}

// As reported (the store's TW_SCHEDULE_REPORTED_COLUMNS): the stored next
// run, or the earliest occurrence written ahead and still waiting; the
// stored last run once it has come due, else the latest stored occurrence
// whose due time has come (the stored one when none is stored).
durable_internal::StoredSchedule ReportedOf(
    const Schedule& schedule,
    const std::map<std::string, FakeDatabase::Task>& tasks, int64_t now_us) {
  durable_internal::StoredSchedule stored = StoredOf(schedule);
  const auto [first, last] =
      durable_internal::OccurrenceRange(schedule.definition.name);
  int64_t latest_due = -1;
  for (auto it = tasks.lower_bound(first);
       it != tasks.end() && it->first < last; ++it) {
    if (it->second.state == TaskState::kPending ||
        it->second.state == TaskState::kScheduled) {
      stored.next_us = std::min(stored.next_us, it->second.due_us);
    }
    if (it->second.due_us <= now_us) {
      latest_due = std::max(latest_due, it->second.due_us);
    }
  }
  if (stored.last_us > now_us && latest_due >= 0) stored.last_us = latest_due;
  stored.created_us = schedule.created_us;
  stored.now_us = now_us;
  return stored;
}

}  // namespace

FakeStore::Tables FakeStore::SaveLocked() {
  return Tables{db_->tasks_, db_->schedules_};
}

void FakeStore::RestoreLocked(Tables tables) {
  db_->tasks_ = std::move(tables.tasks);
  db_->schedules_ = std::move(tables.schedules);
}

absl::StatusOr<RecurringSchedule> FakeStore::StoredLocked(
    const RecurringSchedule& schedule) {
  absl::StatusOr<Recurrence> recurrence =
      durable_internal::RecurrenceOf(schedule, schedule.payload.size());
  if (!recurrence.ok()) return recurrence.status();
  absl::Status status = durable_internal::CheckOccurrenceKind(schedule);
  if (!status.ok()) return status;
  if (!schedule.kind.empty() && db_->kinds_.count(schedule.kind) == 0) {
    return absl::NotFoundError(
        absl::StrCat("no scheduler handles kind \"", schedule.kind, "\""));
  }
  return durable_internal::StoredDefinition(schedule, *recurrence);
}

int64_t FakeStore::DeleteWaitingLocked(const std::string& name, bool keep_due) {
  auto [first, last] = durable_internal::OccurrenceRange(name);
  const int64_t now_us = db_->NowLocked();
  int64_t earliest = durable_internal::kNoOccurrenceUs;
  for (auto it = db_->tasks_.lower_bound(first);
       it != db_->tasks_.end() && it->first < last;) {
    const TaskState state = it->second.state;
    const bool waiting =
        state == TaskState::kPending || state == TaskState::kScheduled;
    if (waiting && !(keep_due && it->second.due_us <= now_us)) {
      std::string of;
      int64_t at = 0;
      if (durable_internal::ParseOccurrenceId(it->first, &of, &at)) {
        earliest = std::min(earliest, at);
      }
      it = db_->tasks_.erase(it);
    } else {
      ++it;
    }
  }
  return earliest;
}

absl::StatusOr<ScheduleWrite> FakeStore::AdvanceLocked(
    const std::string& name, const Inserter& inserter) {
  ScheduleWrite write;
  auto found = db_->schedules_.find(name);
  if (found == db_->schedules_.end() || found->second.paused) return write;
  Schedule& schedule = found->second;
  const int64_t now_us = db_->NowLocked();
  absl::StatusOr<Recurrence> recurrence = durable_internal::RecurrenceOf(
      schedule.definition, schedule.definition.payload.size());
  if (!recurrence.ok()) return recurrence.status();

  // The newest occurrence task still stored (ids of one schedule sort by
  // instant).
  PriorOccurrence prior;
  auto [first, last] = durable_internal::OccurrenceRange(name);
  auto newest = db_->tasks_.lower_bound(last);
  if (newest != db_->tasks_.begin() && (--newest)->first >= first) {
    prior.exists = true;
    prior.unfinished = newest->second.state == TaskState::kPending ||
                       newest->second.state == TaskState::kScheduled ||
                       newest->second.state == TaskState::kRunning;
  }
  absl::StatusOr<AdvancePlan> plan = durable_internal::PlanAdvance(
      *recurrence, schedule.definition.policy, schedule.last_us, now_us, prior);
  if (!plan.ok()) return plan.status();
  const std::vector<InsertRow> rows = durable_internal::OccurrenceRows(
      schedule.definition, schedule.slot, plan->write_us);
  if (!rows.empty()) {
    absl::StatusOr<InsertResult> inserted = InsertLocked(inserter, rows);
    if (!inserted.ok()) return inserted.status();
    write.inserted = *std::move(inserted);
    write.written = static_cast<int64_t>(rows.size());
  }
  if (plan->last_us != schedule.last_us || plan->plan_us != schedule.plan_us ||
      plan->next_us != schedule.next_us) {
    schedule.last_us = plan->last_us;
    schedule.plan_us = plan->plan_us;
    schedule.next_us = plan->next_us;
    schedule.version = db_->next_version_++;
  }
  return write;
}

absl::StatusOr<ScheduleWrite> FakeStore::CreateSchedule(
    const RecurringSchedule& schedule, int slot, const Inserter& inserter) {
  internal::MutexLock lock(db_->mu_);
  TW_FAKE_FAIL("CreateSchedule");
  absl::StatusOr<RecurringSchedule> stored = StoredLocked(schedule);
  if (!stored.ok()) return stored.status();
  auto found = db_->schedules_.find(stored->name);
  if (found != db_->schedules_.end()) {
    if (!durable_internal::SameDefinition(found->second.definition, *stored)) {
      return absl::AlreadyExistsError(
          "a schedule of this name exists with another definition");
    }
    return ScheduleWrite();
  }
  Tables before = SaveLocked();
  Schedule row;
  row.definition = *stored;
  row.slot = slot;
  row.last_us = db_->NowLocked();
  row.created_us = row.last_us;
  row.version = db_->next_version_++;
  db_->schedules_.emplace(stored->name, std::move(row));
  absl::StatusOr<ScheduleWrite> write = AdvanceLocked(stored->name, inserter);
  if (!write.ok()) RestoreLocked(std::move(before));
  return write;
}

absl::StatusOr<ScheduleWrite> FakeStore::UpdateSchedule(
    const RecurringSchedule& schedule, const Inserter& inserter) {
  internal::MutexLock lock(db_->mu_);
  TW_FAKE_FAIL("UpdateSchedule");
  absl::StatusOr<RecurringSchedule> stored = StoredLocked(schedule);
  if (!stored.ok()) return stored.status();
  auto found = db_->schedules_.find(stored->name);
  if (found == db_->schedules_.end()) {
    return absl::NotFoundError("no such schedule");
  }
  Tables before = SaveLocked();
  found->second.definition = *stored;
  found->second.last_us = db_->NowLocked();
  found->second.version = db_->next_version_++;
  DeleteWaitingLocked(stored->name, /*keep_due=*/true);
  absl::StatusOr<ScheduleWrite> write = AdvanceLocked(stored->name, inserter);
  if (!write.ok()) RestoreLocked(std::move(before));
  return write;
}

absl::Status FakeStore::PauseSchedule(const std::string& name) {
  internal::MutexLock lock(db_->mu_);
  TW_FAKE_FAIL("PauseSchedule");
  auto found = db_->schedules_.find(name);
  if (found == db_->schedules_.end()) {
    return absl::NotFoundError("no such schedule");
  }
  Schedule& schedule = found->second;
  schedule.paused = true;
  schedule.last_us = std::min(schedule.last_us, db_->NowLocked());
  schedule.version = db_->next_version_++;
  const int64_t earliest = DeleteWaitingLocked(name, /*keep_due=*/false);
  if (earliest != durable_internal::kNoOccurrenceUs) {
    schedule.last_us = std::min(schedule.last_us, earliest - 1);
  }
  return absl::OkStatus();
}

absl::StatusOr<ScheduleWrite> FakeStore::ResumeSchedule(
    const std::string& name, const Inserter& inserter) {
  internal::MutexLock lock(db_->mu_);
  TW_FAKE_FAIL("ResumeSchedule");
  auto found = db_->schedules_.find(name);
  if (found == db_->schedules_.end()) {
    return absl::NotFoundError("no such schedule");
  }
  Tables before = SaveLocked();
  found->second.paused = false;
  found->second.version = db_->next_version_++;
  absl::StatusOr<ScheduleWrite> write = AdvanceLocked(name, inserter);
  if (!write.ok()) {
    RestoreLocked(std::move(before));
    return durable_internal::ResumeWriteError(write.status());
  }
  return write;
}

absl::StatusOr<bool> FakeStore::DeleteSchedule(const std::string& name) {
  internal::MutexLock lock(db_->mu_);
  TW_FAKE_FAIL("DeleteSchedule");
  if (db_->schedules_.erase(name) == 0) return false;
  DeleteWaitingLocked(name, /*keep_due=*/false);
  return true;
}

absl::StatusOr<std::vector<ScheduleInfo>> FakeStore::ListSchedules() {
  internal::MutexLock lock(db_->mu_);
  TW_FAKE_FAIL("ListSchedules");
  std::vector<ScheduleInfo> infos;
  for (const auto& [name, schedule] : db_->schedules_) {
    infos.push_back(durable_internal::ScheduleInfoOf(
        ReportedOf(schedule, db_->tasks_, db_->NowLocked())));
  }
  return infos;
}

absl::StatusOr<ScheduleInfo> FakeStore::GetSchedule(const std::string& name) {
  internal::MutexLock lock(db_->mu_);
  TW_FAKE_FAIL("GetSchedule");
  auto found = db_->schedules_.find(name);
  if (found == db_->schedules_.end()) {
    return absl::NotFoundError("no such schedule");
  }
  return durable_internal::ScheduleInfoOf(
      ReportedOf(found->second, db_->tasks_, db_->NowLocked()));
}

absl::StatusOr<ScheduleWrite> FakeStore::AdvanceSchedule(
    const std::string& name, const Inserter& inserter) {
  internal::MutexLock lock(db_->mu_);
  TW_FAKE_FAIL("AdvanceSchedule");
  // Atomic as it is: the occurrences' insert changes nothing when it
  // fails, and the schedule moves only after it.
  return AdvanceLocked(name, inserter);
}

absl::StatusOr<CompleteAndAdvanceResult> FakeStore::CompleteAndAdvance(
    absl::Span<const Completion> completions, int64_t horizon_us,
    absl::Span<const std::string> names, const Inserter& inserter,
    const durable_internal::AttemptLog& /*log*/) {
  internal::MutexLock lock(db_->mu_);
  TW_FAKE_FAIL("CompleteAndAdvance");
  CompleteAndAdvanceResult result;
  result.complete = CompleteLocked(completions, horizon_us);
  // The savepoint: the outcomes stay recorded if an advance fails.
  Tables savepoint = SaveLocked();
  for (const std::string& name : names) {
    absl::StatusOr<ScheduleWrite> write = AdvanceLocked(name, inserter);
    if (!write.ok()) {
      RestoreLocked(std::move(savepoint));
      result.writes.clear();
      result.advance_failed = true;
      break;
    }
    result.writes.push_back(*std::move(write));
  }
  return result;
}

absl::StatusOr<durable_internal::DueScheduleList> FakeStore::DueSchedules(
    absl::Span<const int> slots, int64_t horizon_us, int64_t limit) {
  internal::MutexLock lock(db_->mu_);
  TW_FAKE_FAIL("DueSchedules");
  const int64_t now_us = db_->NowLocked();
  std::vector<std::pair<int64_t, std::string>> rows;
  for (const auto& [name, schedule] : db_->schedules_) {
    if (schedule.paused) continue;
    if (std::find(slots.begin(), slots.end(), schedule.slot) == slots.end()) {
      continue;
    }
    // As kDueSql (schedule_store.cc).
    const int64_t lead_us =
        schedule.definition.policy.overlap == Overlap::kRunAnyway
            ? durable_internal::kRunAnywayPlanLeadUs
            : horizon_us;
    // Only plans within half a horizon of being due.
    if (schedule.plan_us >
        now_us + std::max(horizon_us, durable_internal::kRunAnywayPlanLeadUs) +
            horizon_us / 2) {
      continue;
    }
    rows.emplace_back(schedule.plan_us - now_us - lead_us, name);
  }
  std::sort(rows.begin(), rows.end());
  durable_internal::DueScheduleList due;
  for (const auto& [in_us, name] : rows) {
    if (in_us > 0) {
      due.next_in_us = in_us;
      break;
    }
    if (static_cast<int64_t>(due.names.size()) >= limit) break;
    due.names.push_back(name);
  }
  return due;
}

}  // namespace durable_testing
}  // namespace timingwheel
