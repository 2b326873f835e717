// Copyright 2026 The timingwheel Authors.
//
// fake_store.h
// -----------------------------------------------------------------------------
//
// FakeStore: `StoreApi` in memory, over a `FakeDatabase` that several
// stores share (several processes on one database). It keeps the store's
// promises (store_api.h): the task states and their compare-and-sets,
// fencing by epoch and lease expiry, identical retries and AlreadyExists,
// due times and the horizon's wake-ups, attempts counted when started,
// retries, cancellation and stop requests, the cleanup of finished tasks.
// It does not model SQL plans, HOT updates, lost replies or connections
// (its `Reconnect()`, `EnsureSchema()` beyond the slot count, `LockNode()`
// and `Listen()` just succeed), nor the attempt history (operators read it
// through `AdminStore`, which is PostgreSQL's only). Recurring schedules
// are kept as schedule_store_api.h states (fake_store_schedules.cc).
//
// Thread safety: thread-compatible, as every `StoreApi`: one caller at a
// time per store; distinct stores over one database may be used at once.

#ifndef TIMINGWHEEL_DURABLE_TESTING_FAKE_STORE_H_
#define TIMINGWHEEL_DURABLE_TESTING_FAKE_STORE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "durable/recurring.h"
#include "durable/sql/store_api.h"
#include "durable/testing/fake_database.h"

namespace timingwheel {
namespace durable_testing {

// FakeStore
//
// `StoreApi` over a `FakeDatabase` (one "connection"). Thread-compatible.
class FakeStore final : public durable_internal::StoreApi {
 public:
  explicit FakeStore(std::shared_ptr<FakeDatabase> db);
  ~FakeStore() override;
  FakeStore(const FakeStore&) = delete;
  FakeStore& operator=(const FakeStore&) = delete;

  absl::StatusOr<bool> LockNode(const std::string& node) override;
  absl::StatusOr<durable_internal::NodeRelock> RelockNode(
      const std::string& node) override;
  // Never takes over: every holder counts as live.
  absl::StatusOr<bool> TakeOverNode(const std::string& node,
                                    int64_t ttl_us) override;
  absl::Status Reconnect() override;
  absl::Status EnsureSchema(int slot_count) override;
  absl::Status CheckSchema(int slot_count) override;
  absl::StatusOr<CancelOutcome> CancelTask(const std::string& id) override;
  absl::StatusOr<durable_internal::ReplaceResult> Replace(
      const durable_internal::Inserter& inserter,
      absl::Span<const durable_internal::ReplaceRow> rows) override;
  absl::StatusOr<durable_internal::InsertResult> Insert(
      const durable_internal::Inserter& inserter,
      absl::Span<const durable_internal::InsertRow> rows) override;
  absl::Status NotifyDue(
      absl::Span<const durable_internal::WheelEntry> entries) override;
  absl::StatusOr<bool> Cancel(const std::string& id) override;
  absl::StatusOr<TaskInfo> Get(const std::string& id) override;
  absl::StatusOr<int64_t> RegisterKinds(const std::string& node,
                                        absl::Span<const std::string> kinds,
                                        int64_t forget_after_us) override;
  absl::StatusOr<durable_internal::Renewal> Renew(
      const std::string& node,
      absl::Span<const durable_internal::SlotEpoch> owned, int64_t ttl_us,
      int64_t horizon_us, bool leaving) override;
  using StoreApi::Acquire;
  absl::StatusOr<std::vector<durable_internal::SlotEpoch>> Acquire(
      const std::string& node, int count, int64_t ttl_us, int max_attempts,
      int64_t horizon_us,
      absl::Span<const durable_internal::LiveAttempt> live) override;
  absl::Status Release(
      const std::string& node,
      absl::Span<const durable_internal::SlotEpoch> slots) override;
  absl::Status RemoveNode(const std::string& node) override;
  absl::StatusOr<int64_t> ForgetStaleNodes(int64_t stale_for_us,
                                           int64_t limit) override;
  absl::StatusOr<int64_t> RequeueOrphans(
      const std::string& node,
      absl::Span<const durable_internal::SlotEpoch> owned,
      const std::vector<std::string>& running_ids, int max_attempts,
      bool include_scheduled) override;
  absl::StatusOr<int64_t> MarkStarted(
      absl::Span<const durable_internal::StartMark> marks) override;
  using StoreApi::ClaimDue;
  absl::StatusOr<durable_internal::Claimed> ClaimDue(
      const std::string& node,
      absl::Span<const durable_internal::SlotEpoch> owned, int64_t horizon_us,
      int64_t limit, int max_attempts) override;
  absl::StatusOr<int64_t> Unclaim(
      absl::Span<const durable_internal::WheelEntry> entries) override;
  absl::StatusOr<durable_internal::FireResult> StartRunning(
      const std::string& node,
      absl::Span<const durable_internal::WheelEntry> entries) override;
  // The planned core's read-only load and fire by slot
  // (fake_store_slot_fire.cc). Row locks are not modelled: no row is ever
  // passed over as locked.
  absl::StatusOr<durable_internal::SlotDues> NextDueBySlot(
      const std::string& node,
      absl::Span<const durable_internal::SlotEpoch> owned) override;
  absl::StatusOr<durable_internal::SlotFire> FireSlots(
      const std::string& node,
      absl::Span<const durable_internal::SlotEpoch> owned,
      const durable_internal::KindCapacity& free_by_kind, int64_t others_free,
      int64_t limit, int min_priority) override;
  absl::StatusOr<durable_internal::CompleteResult> Complete(
      absl::Span<const durable_internal::Completion> completions,
      int64_t horizon_us, const durable_internal::AttemptLog& log) override;
  absl::StatusOr<int64_t> DeleteFinished(
      absl::Span<const durable_internal::SlotEpoch> owned, int64_t retain_us,
      int64_t limit) override;
  absl::Status Listen() override;
  int socket() const override { return socket_; }
  absl::Status DrainNotifications(
      std::vector<int>* slots,
      std::vector<durable_internal::LiveAttempt>* stops = nullptr) override;

  // The recurring schedules (fake_store_schedules.cc).
  absl::StatusOr<durable_internal::ScheduleWrite> CreateSchedule(
      const RecurringSchedule& schedule, int slot,
      const durable_internal::Inserter& inserter) override;
  absl::StatusOr<durable_internal::ScheduleWrite> UpdateSchedule(
      const RecurringSchedule& schedule,
      const durable_internal::Inserter& inserter) override;
  absl::Status PauseSchedule(const std::string& name) override;
  absl::StatusOr<durable_internal::ScheduleWrite> ResumeSchedule(
      const std::string& name,
      const durable_internal::Inserter& inserter) override;
  absl::StatusOr<bool> DeleteSchedule(const std::string& name) override;
  absl::StatusOr<std::vector<ScheduleInfo>> ListSchedules() override;
  absl::StatusOr<ScheduleInfo> GetSchedule(const std::string& name) override;
  absl::StatusOr<durable_internal::ScheduleWrite> AdvanceSchedule(
      const std::string& name,
      const durable_internal::Inserter& inserter) override;
  absl::StatusOr<durable_internal::CompleteAndAdvanceResult> CompleteAndAdvance(
      absl::Span<const durable_internal::Completion> completions,
      int64_t horizon_us, absl::Span<const std::string> names,
      const durable_internal::Inserter& inserter,
      const durable_internal::AttemptLog& log) override;
  absl::StatusOr<durable_internal::DueScheduleList> DueSchedules(
      absl::Span<const int> slots, int64_t horizon_us, int64_t limit) override;

 private:
  // Insert() and Complete() under the database's lock (the schedules'
  // calls write occurrences and outcomes in the same atomic step).
  absl::StatusOr<durable_internal::InsertResult> InsertLocked(
      const durable_internal::Inserter& inserter,
      absl::Span<const durable_internal::InsertRow> rows)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(db_->mu_);
  durable_internal::CompleteResult CompleteLocked(
      absl::Span<const durable_internal::Completion> completions,
      int64_t horizon_us) ABSL_EXCLUSIVE_LOCKS_REQUIRED(db_->mu_);
  // Writes the occurrences of `name` its plan says are due now.
  absl::StatusOr<durable_internal::ScheduleWrite> AdvanceLocked(
      const std::string& name, const durable_internal::Inserter& inserter)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(db_->mu_);
  // Deletes the PENDING and SCHEDULED occurrence tasks of `name` (with
  // `keep_due`, those not yet due only). Returns the earliest instant
  // deleted (kNoOccurrenceUs: none).
  int64_t DeleteWaitingLocked(const std::string& name, bool keep_due)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(db_->mu_);
  // The tables a schedule call changes, to put back when it fails.
  struct Tables {
    std::map<std::string, FakeDatabase::Task> tasks;
    std::map<std::string, FakeDatabase::Schedule> schedules;
  };
  Tables SaveLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(db_->mu_);
  void RestoreLocked(Tables tables) ABSL_EXCLUSIVE_LOCKS_REQUIRED(db_->mu_);
  // The stored form of `schedule` (checked), or why it cannot be stored.
  absl::StatusOr<RecurringSchedule> StoredLocked(
      const RecurringSchedule& schedule)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(db_->mu_);
  // Places written rows as an insert does: the inserter's own due soon
  // into `result->mine`, the other owners' due soon into `wake`.
  void PlaceLocked(const durable_internal::Inserter& inserter,
                   const std::string& id, int64_t now_us,
                   durable_internal::InsertResult* result, std::set<int>* wake)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(db_->mu_);
  // The lease epoch `node` holds `slot` under now, or 0.
  int64_t EpochOfLocked(const std::string& node, int slot, int64_t now_us)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(db_->mu_);
  bool InOwnedLocked(const std::string& node,
                     absl::Span<const durable_internal::SlotEpoch> owned,
                     const FakeDatabase::Task& task, bool need_valid,
                     int64_t now_us) ABSL_EXCLUSIVE_LOCKS_REQUIRED(db_->mu_);

  const std::shared_ptr<FakeDatabase> db_;
  int socket_ = -1;
  std::string locked_node_;
};

// FakeStoreFactory()
//
// Opens a new `FakeStore` over `db` on each call (for
// `CreateSchedulerWithStores()`).
durable_internal::StoreFactory FakeStoreFactory(
    std::shared_ptr<FakeDatabase> db);

}  // namespace durable_testing
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_TESTING_FAKE_STORE_H_
