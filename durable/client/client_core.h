// Copyright 2026 The timingwheel Authors.
//
// client_core.h
// -----------------------------------------------------------------------------
//
// The producer's half of the durable tier, shared by `DurableClient` and
// `DurableScheduler`: input checks, and Schedule/Cancel/Get on one
// connection of its own (reconnected and retried once when it drops), plus
// the checks of the options both take.

#ifndef TIMINGWHEEL_DURABLE_CLIENT_CLIENT_CORE_H_
#define TIMINGWHEEL_DURABLE_CLIENT_CLIENT_CORE_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "durable/admin_store.h"
#include "durable/client/insert_combiner.h"
#include "durable/client/request.h"
#include "durable/sql/store.h"
#include "durable/task.h"
#include "timer/internal/mutex.h"

namespace timingwheel {
namespace durable_internal {

// The longest duration an option may hold: 100 years (its nanoseconds, and
// a database time plus its microseconds, stay far inside int64).
inline constexpr absl::Duration kMaxOptionDuration = absl::Hours(24 * 36525);

// CheckDuration()
//
// OK when `value` is finite, at least `min` and at most
// `kMaxOptionDuration`; otherwise `absl::InvalidArgumentError` naming
// `name`.
absl::Status CheckDuration(absl::string_view name, absl::Duration value,
                           absl::Duration min);

// CheckClientLimits()
//
// The checks common to both producers' options: slot count in [1, 65536],
// max_id_bytes in [1, kMaxIdBytes], max_payload_bytes in [1,
// kMaxPayloadBytes].
absl::Status CheckClientLimits(int slot_count, const RequestLimits& limits);

// CheckId()
//
// OK for an id of 1 to `limits.max_id_bytes` bytes (what Cancel(),
// CancelTask() and Get() accept); else InvalidArgument naming the limit.
absl::Status CheckId(absl::string_view id, const RequestLimits& limits);

// ClientCore
//
// Thread-safe: every member may be called from any thread; statements run
// one at a time on the core's connection.
class ClientCore {
 public:
  struct Options {
    std::string conninfo;
    int slot_count = 1024;
    RequestLimits limits;
    // The FailedPrecondition message after `Close()`.
    std::string closed_message = "closed";
    // statement_timeout and lock_timeout of the connection.
    SessionLimits session_limits;
    // Whether Create() creates or migrates the schema (`EnsureSchema()`) or
    // only checks it (`CheckSchema()`).
    bool migrate_schema = true;
  };

  // Called after an insert committed (not under the connection's lock;
  // maybe from several inserting threads at once; before `Close()` can
  // return): returns the rows whose owners should be woken now
  // (see `NotifyDue()` in store.h). Tests:
  // ClientCoreTest.AnInsertsCallbackDoesNotHoldTheConnectionFromTheNext,
  // ClientCoreTest.CloseWaitsForAnInsertInFlightToFinishItsCallback.
  using AfterInsert =
      std::function<std::vector<WheelEntry>(const InsertResult& result)>;

  // ClientCore::Create()
  //
  // Connects, and creates or checks the schema (`Store::EnsureSchema()`).
  static absl::StatusOr<std::unique_ptr<ClientCore>> Create(Options options);

  // ClientCore::CreateOver()
  //
  // As `Create()`, over `store` (already connected; `options.conninfo`
  // serves `Admin()` only).
  static absl::StatusOr<std::unique_ptr<ClientCore>> CreateOver(
      Options options, std::unique_ptr<StoreApi> store);

  // ClientCore::Insert()
  //
  // Checks and stores `requests` as `inserter` (one statement, one
  // transaction, maybe shared with concurrent calls: see `InsertCombiner`,
  // each call still gets its own answer), then wakes the owners `after` names
  // (null: the identical retries'). A wake-up that fails is not an error: the
  // task is stored, and its owner's next load finds it.
  absl::StatusOr<InsertResult> Insert(
      absl::Span<const ScheduleRequest> requests, const Inserter& inserter,
      const AfterInsert& after);

  // ClientCore::Replace()
  //
  // Checks `requests` and stores each by `rule` (see `Store::Replace()`),
  // then wakes the owners `after` names, as `Insert()` does. Without
  // `has_payload` (`kRescheduleOnly`) the stored payloads are kept. Returns
  // the outcome per request, in order; `absl::NotFoundError` when a
  // `kRescheduleOnly` request names no task. Retried once after a lost
  // connection: a replacement that committed before its reply was lost is
  // then found done (`kReplaced` or `kKept` instead of `kScheduled`).
  absl::StatusOr<std::vector<ScheduleOutcome>> Replace(
      absl::Span<const ScheduleRequest> requests, ReplaceRule rule,
      bool has_payload, const Inserter& inserter, const AfterInsert& after);

  absl::StatusOr<bool> Cancel(absl::string_view id);
  absl::StatusOr<CancelOutcome> CancelTask(absl::string_view id);
  absl::StatusOr<TaskInfo> Get(absl::string_view id);

  // ClientCore::RunOnStore()
  //
  // Runs `fn` on the connection, under its lock; after a lost connection
  // (Unavailable) reconnects and runs it once more, so `fn` must be safe
  // to repeat (the recurring schedules' transactions are: they re-read the
  // schedule's row). FailedPrecondition after `Close()`.
  absl::Status RunOnStore(const std::function<absl::Status(StoreApi&)>& fn);

  const RequestLimits& limits() const { return options_.limits; }

  // ClientCore::Close()
  //
  // Waits for the statement running now and for inserts in flight (their
  // callbacks and wake-ups included), closes the connection; every later
  // call fails with FailedPrecondition. Idempotent.
  void Close();

  int slot_count() const { return options_.slot_count; }
  const std::string& conninfo() const { return options_.conninfo; }

  // ClientCore::Admin()
  //
  // The operators' API over a second connection, opened on the first call
  // and kept (see `DurableClient::Admin()`). Thread-safe.
  absl::StatusOr<AdminStore*> Admin();

 private:
  // Whether a row of `key` is stored (after a lost reply: did the first
  // try of a cancel delete it?).
  absl::StatusOr<bool> Stored(const std::string& key)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  ClientCore(Options options, std::unique_ptr<StoreApi> store)
      : options_(std::move(options)), store_(std::move(store)) {}

  // One insert statement on the connection (retried once after a lost
  // connection), for the combiner.
  absl::StatusOr<InsertResult> InsertOnStore(const Inserter& inserter,
                                             absl::Span<const InsertRow> rows);

  const Options options_;
  InsertCombiner combiner_;  // Concurrent inserts share statements.
  internal::Mutex mu_;
  std::unique_ptr<StoreApi> store_ ABSL_GUARDED_BY(mu_);  // Null once closed.
  // Inserts in flight, counted apart from mu_ (which a running statement
  // holds), so that calls queue in the combiner while one runs.
  internal::Mutex in_flight_mu_;
  bool closing_ ABSL_GUARDED_BY(in_flight_mu_) = false;
  int inserts_in_flight_ ABSL_GUARDED_BY(in_flight_mu_) = 0;  // Close(): 0.
  std::condition_variable inserts_done_;
  internal::Mutex admin_mu_;
  std::unique_ptr<AdminStore> admin_ ABSL_GUARDED_BY(admin_mu_);
};

// ToRows()
//
// `requests` checked and turned into rows (the first invalid one's error).
absl::StatusOr<std::vector<InsertRow>> ToRows(
    absl::Span<const ScheduleRequest> requests, int slot_count,
    const RequestLimits& limits);

// RuleOf()
//
// The store's rule for `mode`.
ReplaceRule RuleOf(ReplaceMode mode);

// RequestAfter(), RequestAt()
//
// One request due `delay` after the database's now, or at `due`
// (InvalidArgument for `absl::InfinitePast()`).
ScheduleRequest RequestAfter(absl::string_view id, absl::Duration delay,
                             absl::string_view payload);
absl::StatusOr<ScheduleRequest> RequestAt(absl::string_view id, absl::Time due,
                                          absl::string_view payload);

}  // namespace durable_internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_CLIENT_CLIENT_CORE_H_
