// Copyright 2026 The timingwheel Authors.
//
// store_types.h
// -----------------------------------------------------------------------------
//
// The values the durable tier's store statements take and return
// (store_api.h states what each call promises). Plain structs; no logic.

#ifndef TIMINGWHEEL_DURABLE_SQL_STORE_TYPES_H_
#define TIMINGWHEEL_DURABLE_SQL_STORE_TYPES_H_

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "durable/task.h"

namespace timingwheel {
namespace durable_internal {

// SlotEpoch: a slot and the epoch under which this process holds it.
struct SlotEpoch {
  int slot = 0;
  int64_t epoch = 0;
};

// A task claimed into (or inserted straight into) an owner's wheel.
struct WheelEntry {
  std::string id;
  int slot = 0;
  int64_t due_us = 0;
  int64_t epoch = 0;
  std::string kind;  // Empty: the default kind.
  int priority = 0;
};

// What a statement that claims tasks returns: the tasks, and the database's
// clock read as late in the statement as it can be (as it returned its last
// row), to convert due times to the process's clock. A later reading places
// tasks earlier on the process's clock, but never before their due time:
// the reading still precedes the reply (see `LocalDueNanos()`). (Only the
// insert's is read when it starts: the scheduler converts nothing with it.)
struct Claimed {
  std::vector<WheelEntry> tasks;
  int64_t db_now_us = 0;
  // Rows were left that this load could have claimed (it reached its limit,
  // or a slot its share of it): load again.
  bool more = false;
  // Rows within the limit that another transaction held locked, so this
  // load passed them over: load again soon (not at once: the lock may be a
  // caller's open transaction).
  int64_t skipped = 0;
};

// What `StoreApi::RelockNode()` found.
enum class NodeRelock {
  kHeld,          // This session holds the node id now.
  kOwnSession,    // A former session of this process held it; it was ended,
                  // try again shortly.
  kTakenByOther,  // Another process holds it (a replacement took over).
};

// What `StoreApi::Renew()` returns.
struct Renewal {
  int64_t live_nodes = 1;  // Heartbeat within the TTL, this one included.
  // How long until a slot held by another node may come free
  // (microseconds; max int64 when none may): the first of the other live
  // nodes' heartbeats grows older than the TTL (a node that stopped
  // renewing lapses then), or the first lease lapses of an owner no longer
  // live (a lease taken after its owner's last heartbeat outlives it).
  int64_t next_lapse_in_us = std::numeric_limits<int64_t>::max();
  std::vector<int> renewed;  // The owned slots still held (the rest are lost).
};

// A row to insert. `due_or_delay_us` is absolute (microseconds since the
// Unix epoch) unless `relative`, when it is a delay after the database's now.
struct InsertRow {
  std::string id;
  std::string payload;
  int slot = 0;
  int64_t due_or_delay_us = 0;
  bool relative = false;
  std::string kind;  // Empty, or registered (tw_kind): see CheckKinds().
  int priority = 0;  // In [kMinPriority, kMaxPriority].
};

// Who inserts. Rows are always inserted PENDING; rows in the inserter's own
// slots (by the lease rows the statement read) due within its horizon are
// returned (it loads them at once), rows of other owners due within that
// owner's horizon (`tw_slot_lease.horizon_us`) notify them at commit.
struct Inserter {
  std::string node_id;  // Empty: a plain client, never an owner.
  int64_t horizon_us = 0;
  int slot_count = 0;  // Checked against the store's.
};

// What an insert returns.
struct InsertResult {
  // Inserted rows the statement found in the inserter's own slots, due
  // within its horizon; `epoch` is the lease epoch it read. No notification
  // was sent for them: the lease row read may be stale by the commit, so the
  // inserter checks its own lease after the commit (and calls `NotifyDue()`
  // for the ones it cannot vouch for).
  std::vector<WheelEntry> mine;
  // Rows that existed already as identical retries and are still PENDING
  // (slot and stored due time; epoch 0). Nothing was notified for them:
  // the first try's reply may have been lost before its owner heard of it.
  std::vector<WheelEntry> identical;
  int64_t db_now_us = 0;  // The database's clock during the statement.
};

// How `Store::Replace()` treats an id that exists already (the values are
// the statement's).
enum class ReplaceRule : int16_t {
  kReplace = 0,         // Take the row's due time and payload.
  kKeepEarlier = 1,     // Take them only if the row is due earlier.
  kKeepLater = 2,       // Take them only if the row is due later.
  kRescheduleOnly = 3,  // As kReplace, for a PENDING or SCHEDULED task only:
                        // never inserts, never restarts a finished one.
};

// One row of `Store::Replace()`; without `has_payload` the stored payload
// is kept (kRescheduleOnly).
struct ReplaceRow {
  InsertRow row;
  ReplaceRule rule = ReplaceRule::kReplace;
  bool has_payload = true;
};

// What `Store::Replace()` did with one row: the task's state before the
// statement (-1: there was none) and whether the row was written.
struct ReplaceAnswer {
  std::string id;
  int prior_state = -1;
  bool written = false;
};

// The answers (in the rows' order) and, as for an insert, the written rows
// due soon in the inserter's own slots (`mine`) and the database's clock.
struct ReplaceResult {
  std::vector<ReplaceAnswer> answers;
  InsertResult inserted;
};

// The largest notification payload sent; a wake-up for more slots than fit
// is sent as "*" (every listening owner loads). PostgreSQL's limit is 8,000
// bytes.
inline constexpr int64_t kMaxNotifyPayloadBytes = 7000;

// What `DrainNotifications()` appends for a "*" notification: all slots.
inline constexpr int kAllSlots = -1;

// A task moved to RUNNING for one attempt.
struct Started {
  DurableTask task;
  int slot = 0;
  int64_t epoch = 0;
  int64_t version = 0;
  int64_t started_us = 0;  // The fire, on the database's clock.
};

// The result of the fire statement: the attempts to run now, and the tasks
// the database says are not due yet (the process's clock ran ahead).
struct FireResult {
  std::vector<Started> started;
  std::vector<WheelEntry> not_due;
  int64_t db_now_us = 0;
};

// What `NextDueBySlot()` and `FireSlots()` report for a slot that has no
// waiting row (none PENDING or SCHEDULED): no due time.
inline constexpr int64_t kNoDueUs = std::numeric_limits<int64_t>::max();

// SlotDue: an owned slot still held (same owner and epoch, lease valid on
// the database's clock) and the due time of its earliest waiting row
// (PENDING or SCHEDULED under any epoch; `kNoDueUs` when it has none). A
// due time at or before the statement's `db_now_us` means rows are due
// and were not fired (none asked, their kind had no free place, or another
// transaction held them locked).
//
// `next_priority` is the priority of the row the slot gives next: its
// highest-priority due waiting row when one is due at the statement's
// clock, else its earliest waiting row (0 when it has none); the engine
// names the due slots of a fire higher `next_priority` first. `skipped`
// (FireSlots() only) counts the rows the fire picked in the slot and did
// not start (another transaction held them locked, or changed them
// meanwhile): worth a retry soon, unlike rows of kinds at their limits.
struct SlotDue {
  int slot = 0;
  int64_t epoch = 0;
  int64_t next_due_us = kNoDueUs;
  int next_priority = 0;
  int64_t skipped = 0;
};

// What `StoreApi::NextDueBySlot()` returns: the held slots of those asked
// about (by slot), and the database's clock read after them.
struct SlotDues {
  std::vector<SlotDue> slots;
  int64_t db_now_us = 0;
};

// KindCapacity: how many more attempts of each kind may start now (the
// free handler places per kind; the default kind is ""). A kind it does
// not name has only what `FireSlots()`'s `others_free` gives the kinds not
// named, together.
using KindCapacity = std::map<std::string, int64_t>;

// A fire by slot gives each slot it names the whole limit (not a share)
// while that reads at most this many rows over the slots named: a small
// fire then starts exactly the highest priorities of all its slots' due
// rows (store_slot_fire.cc writes the same number in its SQL).
inline constexpr int64_t kSlotFireExactRows = 256;

// What `StoreApi::FireSlots()` returns: the attempts started (higher
// priority first, then in due order, then by id), each held slot's next due
// time after the fire (by slot; the slots fenced are absent), and the
// database's clock read after the writes.
struct SlotFire {
  std::vector<Started> started;
  std::vector<SlotDue> next_due;
  // The database's clock at the fire's due check (rows due after it were
  // not asked for), and a reading after the statement's work.
  int64_t checked_us = 0;
  int64_t db_now_us = 0;
};

// An attempt whose handler has started (counted by `Store::MarkStarted()`).
struct StartMark {
  std::string id;
  int64_t version = 0;
  int attempt = 0;
};

// An attempt this process runs now: the row `id` it fired, RUNNING under
// `version` (a takeover of the row's slot by this process spares it).
struct LiveAttempt {
  std::string id;
  int64_t version = 0;
};

// How an attempt ended.
// kSnooze: run again after `backoff_us`, this attempt not counted.
enum class Outcome : int16_t {
  kSuccess = 0,
  kRetry = 1,
  kFailed = 2,
  kSnooze = 3,
};

struct Completion {
  std::string id;
  int64_t version = 0;
  int attempt = 0;  // The attempt that ran (counted as started).
  int slot = 0;     // The task's slot (not written: the process's books).
  Outcome outcome = Outcome::kSuccess;
  int64_t backoff_us = 0;  // kRetry, kSnooze: due again this much later.
  std::string error;       // For kRetry and kFailed (and a kSnooze that
                           // says why: it becomes the last error).
  int64_t started_us = 0;  // The attempt's fire (for its history record).
};

// Who writes completions, for the attempt history (tw_attempt): the node
// id recorded with each attempt, and whether to record them at all.
struct AttemptLog {
  std::string node_id;
  bool record = false;
};

struct CompleteResult {
  int64_t written = 0;              // Rows whose version still matched:
  int64_t succeeded = 0;            //   now SUCCESS,
  int64_t failed = 0;               //   now FAILED,
  int64_t retried = 0;              //   retries (SCHEDULED or PENDING).
  std::vector<WheelEntry> retries;  // Retries due within the horizon,
  int64_t db_now_us = 0;            // already SCHEDULED for this owner.
};

}  // namespace durable_internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_SQL_STORE_TYPES_H_
