// Copyright 2026 The timingwheel Authors.
//
// durable_client.h
// -----------------------------------------------------------------------------
//
// `DurableClient`: a producer of durable tasks that is not a scheduler. It
// schedules, cancels and looks up tasks in a store that `DurableScheduler`s
// run, on one connection of its own, and holds no slots and runs no
// handlers: it never writes `tw_slot_lease` or `tw_node`, so it changes no
// scheduler's fair share, and nothing waits for it when it goes away.
//
// Which one to use:
//   * A process that only enqueues (a web service taking orders, a batch
//     importer): `DurableClient`. Its tasks reach their slots' owners by
//     notification at commit, or at the owners' next load.
//   * A process that runs tasks (a worker): `DurableScheduler`; it can
//     schedule too, and loads tasks of its own slots at once.
//   * Tasks that must commit with the caller's own rows:
//     `ScheduleInTransaction()` (durable_scheduler.h), on the caller's
//     connection.
//
// Guarantees (as `DurableScheduler`'s client calls; the same code runs
// both):
//   * Same semantics, validation and errors: idempotent identical retries,
//     AlreadyExists for another task under the id, InvalidArgument for bad
//     input, Unavailable when the database stays unreachable after one
//     reconnect, FailedPrecondition after `Close()`. No error contains the
//     connection's password.
//   * A task due within its owner's horizon wakes the owner at commit, also
//     when the call is an identical retry of one whose reply was lost, and
//     for a batch over any number of slots.
// Tested by tests/durable/durable_client_test.cc.
//
// Thread safety: every member is thread-safe; calls run one statement at a
// time on the client's connection (use several clients for parallel
// producers).
//
// Example (a web service that enqueues order expiries):
//   timingwheel::DurableClientOptions options;
//   options.conninfo = "host=/var/run/postgresql dbname=app";
//   auto client = timingwheel::DurableClient::Create(options).value();
//   absl::Status s = client->Schedule("order-42", absl::Hours(24), "cart=7");

#ifndef TIMINGWHEEL_DURABLE_DURABLE_CLIENT_H_
#define TIMINGWHEEL_DURABLE_DURABLE_CLIENT_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "durable/admin_store.h"  // IWYU pragma: export
#include "durable/recurring.h"
#include "durable/task.h"

namespace timingwheel {
namespace durable_internal {
class ClientCore;
}  // namespace durable_internal

// DurableClientOptions
//
// How a `DurableClient` is built. `slot_count` must be the store's (its
// schedulers'); the limits are checked before anything is sent.
struct DurableClientOptions {
  // A libpq connection string, as `DurableOptions::conninfo`.
  std::string conninfo;
  // In [1, 65536]; the store's slot count.
  int slot_count = 1024;
  // Whether `Create()` creates the schema or migrates an older one
  // (true), or only checks it (false: then `Create()` fails with
  // FailedPrecondition naming the `twctl migrate` command to run when there
  // is no store or an older one, and changes nothing). Set it to false in
  // production deploys where the operator runs migrations (some steps lock
  // the task table: `twctl migrate --dry-run` names each step's locks).
  bool migrate_schema = true;
  // The longest task id, in [1, kMaxIdBytes] (2,048), and the largest
  // payload, in [1, kMaxPayloadBytes] (256 MiB), this client accepts
  // (task.h; InvalidArgument at Create() outside them).
  int64_t max_id_bytes = 1024;
  int64_t max_payload_bytes = 16 << 20;
  // The longest one statement (or its wait for a lock) may take: a call
  // past it fails with DeadlineExceeded instead of hanging. Zero: no limit.
  // In [0, 24h] (InvalidArgument at Create() outside). Test:
  // DurableClientTest.StatementTimeoutEndsACallWaitingOnALock.
  absl::Duration statement_timeout = absl::Seconds(30);
  // Set when `conninfo` goes through a connection pooler in transaction
  // mode (PgBouncer's `pool_mode = transaction`), where named prepared
  // statements and session settings do not survive between transactions:
  // statements are then sent unnamed, and `statement_timeout` is not set
  // on the session (set it on the role, `ALTER ROLE app SET
  // statement_timeout = '30s'`, or PgBouncer's `query_timeout`). A
  // `DurableScheduler` must not go through such a pooler (it holds
  // LISTEN and session advisory locks): docs/durable.md, "Behind
  // PgBouncer". Test: PgBouncerTest.*.
  bool transaction_pooler = false;
};

// DurableClient
//
// Create with `Create()`.
class DurableClient {
 public:
  // DurableClient::Create()
  //
  // Connects, and creates the schema if it is missing or checks it (as
  // `DurableScheduler::Create()`). InvalidArgument for invalid options (or
  // an unparsable connection string), Unavailable when the database cannot
  // be reached, FailedPrecondition for a schema of a newer version or
  // another slot count. Thread-safe.
  static absl::StatusOr<std::unique_ptr<DurableClient>> Create(
      DurableClientOptions options);

  DurableClient(const DurableClient&) = delete;
  DurableClient& operator=(const DurableClient&) = delete;
  ~DurableClient();

  // DurableClient::Schedule(), ScheduleAt(), ScheduleBatch(), Cancel(), Get()
  //
  // As `DurableScheduler`'s members of the same names.
  absl::Status Schedule(absl::string_view id, absl::Duration delay,
                        absl::string_view payload);
  absl::Status ScheduleAt(absl::string_view id, absl::Time due,
                          absl::string_view payload);
  absl::Status ScheduleBatch(absl::Span<const ScheduleRequest> requests);
  absl::Status Schedule(const ScheduleRequest& request) {
    return ScheduleBatch({&request, 1});
  }
  absl::StatusOr<bool> Cancel(absl::string_view id);
  absl::StatusOr<TaskInfo> Get(absl::string_view id);
  // As `DurableScheduler::CancelTask()`: cancels a waiting task, or stops a
  // running one (its owner is notified).
  absl::StatusOr<CancelOutcome> CancelTask(absl::string_view id);

  // DurableClient::ScheduleOrReplace(), ScheduleOrReplaceBatch(),
  // Reschedule(), RescheduleAfter()
  //
  // As `DurableScheduler`'s members of the same names (the owners of the
  // slots are woken by the database's notification).
  absl::StatusOr<ScheduleOutcome> ScheduleOrReplace(
      const ScheduleRequest& request, ReplaceMode mode = ReplaceMode::kReplace);
  absl::StatusOr<std::vector<ScheduleOutcome>> ScheduleOrReplaceBatch(
      absl::Span<const ScheduleRequest> requests,
      ReplaceMode mode = ReplaceMode::kReplace);
  absl::StatusOr<ScheduleOutcome> Reschedule(
      absl::string_view id, absl::Time due,
      std::optional<std::string> payload = std::nullopt);
  absl::StatusOr<ScheduleOutcome> RescheduleAfter(
      absl::string_view id, absl::Duration delay,
      std::optional<std::string> payload = std::nullopt);

  // DurableClient::Admin()
  //
  // The operators' API on this object (`AdminStore`, admin_store.h): list
  // tasks by state, due range and id prefix, paged by a cursor; counts by
  // state; one task in detail; retry a FAILED task (one, or all matching a
  // filter: `RetryMatching()`), discard it (`Discard()`), cancel,
  // reschedule. Over a second connection, opened on the first call and
  // kept; its errors are `AdminStore::Connect()`'s. Thread-safe; the
  // pointer lives as long as this object. Test:
  // AdminStoreTest.TheClientAndTheSchedulerHandTheAdminApi.
  absl::StatusOr<AdminStore*> Admin();

  // DurableClient::CreateSchedule(), UpdateSchedule(), PauseSchedule(),
  // ResumeSchedule(), DeleteSchedule(), ListSchedules(), GetSchedule()
  //
  // Recurring schedules, as `DurableScheduler`'s calls of the same names
  // (durable_scheduler.h; recurring.h): the occurrences they write are run
  // by the schedulers owning the schedules' slots, woken at commit.
  // Tested by RecurringTest.ClientManagesSchedulesThatSchedulersRun.
  absl::Status CreateSchedule(const RecurringSchedule& schedule);
  absl::Status UpdateSchedule(const RecurringSchedule& schedule);
  absl::Status PauseSchedule(absl::string_view name);
  absl::Status ResumeSchedule(absl::string_view name);
  absl::StatusOr<bool> DeleteSchedule(absl::string_view name);
  absl::StatusOr<std::vector<ScheduleInfo>> ListSchedules();
  absl::StatusOr<ScheduleInfo> GetSchedule(absl::string_view name);

  // DurableClient::Close()
  //
  // Waits for the call running now and closes the connection; later calls
  // fail with FailedPrecondition. Idempotent; the destructor calls it.
  void Close();

 private:
  explicit DurableClient(std::unique_ptr<durable_internal::ClientCore> core);

  std::unique_ptr<durable_internal::ClientCore> core_;
};

}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_DURABLE_CLIENT_H_
