// Copyright 2026 The timingwheel Authors.
//
// The operators' statements; see admin_store.h for what each promises.
// Every statement is constant text with $n parameters, and every row is
// read by column name (PgRow).

#include "durable/admin_store.h"

#include <limits>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "durable/migrations.h"
#include "durable/pg_exec.h"
#include "durable/pg_params.h"
#include "durable/redact.h"
#include "durable/store.h"
#include "libpq-fe.h"

namespace timingwheel {

using durable_internal::kSchemaVersion;
using durable_internal::PgExec;
using durable_internal::PgParams;
using durable_internal::PgResult;
using durable_internal::PgRow;

namespace {

constexpr char kNowSql[] = "SELECT tw_now_us() AS now_us";

constexpr char kNodesSql[] = R"sql(
SELECT n.node_id, n.heartbeat_us,
       (SELECT count(*) FROM tw_slot_lease l
        WHERE l.owner = n.node_id AND l.lease_until_us > $1) AS slots_held
FROM tw_node n ORDER BY n.node_id
)sql";

constexpr char kSlotsSql[] = R"sql(
SELECT slot, owner, epoch, lease_until_us, horizon_us
FROM tw_slot_lease ORDER BY slot
)sql";

constexpr char kCountsSql[] = R"sql(
SELECT state, count(*) AS n FROM tw_timer GROUP BY state
)sql";

// The next PENDING or SCHEDULED task still to come.
constexpr char kNextDueSql[] = R"sql(
SELECT task_id, due_us FROM tw_timer
WHERE state < 2 AND due_us > $1 ORDER BY due_us, task_id LIMIT 1
)sql";

// PENDING or SCHEDULED tasks whose due time has passed, and the oldest.
constexpr char kOverdueSql[] = R"sql(
WITH o AS (SELECT task_id, due_us FROM tw_timer
           WHERE state < 2 AND due_us <= $1)
SELECT (SELECT count(*) FROM o) AS n, oldest.task_id, oldest.due_us
FROM (SELECT 1) AS one
LEFT JOIN (SELECT task_id, due_us FROM o ORDER BY due_us, task_id LIMIT 1)
  AS oldest ON true
)sql";

// $1 state (-1: any), [$2, $3) due range, $4 id prefix, $5 paging on,
// $6 the last id of the previous page, $7 the limit.
constexpr char kListSql[] = R"sql(
SELECT task_id, state, due_us, attempt, slot,
       octet_length(payload) AS payload_bytes
FROM tw_timer
WHERE ($1 < 0 OR state = $1)
  AND due_us >= $2 AND due_us < $3
  AND task_id >= $4 AND substring(task_id FROM 1 FOR length($4)) = $4
  AND (NOT $5 OR task_id > $6)
ORDER BY task_id LIMIT $7
)sql";

constexpr char kShowSql[] = R"sql(
SELECT t.state, t.attempt, t.due_us, t.slot, t.version, t.epoch,
       octet_length(t.payload) AS payload_bytes,
       substring(t.payload FROM 1 FOR $2::integer) AS payload_head,
       t.last_error, t.finished_us,
       l.owner, l.epoch AS slot_epoch, l.lease_until_us,
       tw_now_us() AS now_us
FROM tw_timer t LEFT JOIN tw_slot_lease l ON l.slot = t.slot
WHERE t.task_id = $1
)sql";

// The writes: lock the row, then change it (see admin_store.h).
constexpr char kLockTaskSql[] = R"sql(
SELECT state FROM tw_timer WHERE task_id = $1 FOR UPDATE
)sql";

constexpr char kDeleteTaskSql[] = R"sql(
DELETE FROM tw_timer WHERE task_id = $1 RETURNING slot
)sql";

// Reschedule: PENDING at a new due time ($2: absolute, or a delay after
// now if $3), a new version.
constexpr char kRescheduleSql[] = R"sql(
UPDATE tw_timer
SET state = 0,
    due_us = CASE WHEN $3 THEN tw_now_us() + $2 ELSE $2 END,
    version = nextval('tw_version_seq')
WHERE task_id = $1
RETURNING slot, due_us
)sql";

// Retry: the FAILED row is replaced by a new PENDING one (same id, slot,
// payload and last error; attempts 0, a new version, no finished time).
// Not an UPDATE: the owner's cleanup of finished rows (store.cc) deletes
// `task_id IN (finished rows of its snapshot)`, and a cleanup waiting on
// this row's lock would re-check only that condition and delete the
// retried row; a replaced row is gone for it, and the new one was never in
// its snapshot. Test: AdminStoreTest.RetryRacingTheCleanupKeepsTheTask.
constexpr char kRetrySql[] = R"sql(
WITH old AS (
  DELETE FROM tw_timer WHERE task_id = $1
  RETURNING task_id, slot, payload, last_error)
INSERT INTO tw_timer (task_id, slot, due_us, state, payload, last_error)
SELECT task_id, slot, CASE WHEN $3 THEN tw_now_us() + $2 ELSE $2 END, 0,
       payload, last_error
FROM old
RETURNING slot, due_us
)sql";

// Wakes the slot's owner at commit if the task is due within its horizon,
// as inserts do (store.cc).
constexpr char kNotifySql[] = R"sql(
SELECT pg_notify('timingwheel', l.slot::text) AS notified
FROM tw_slot_lease l
WHERE l.slot = $1 AND $2 < tw_now_us() + l.horizon_us
)sql";

absl::Time FromMicros(int64_t us) { return absl::FromUnixMicros(us); }

int64_t ToMicros(absl::Time t) {
  if (t == absl::InfinitePast()) return std::numeric_limits<int64_t>::min();
  if (t == absl::InfiniteFuture()) return std::numeric_limits<int64_t>::max();
  return absl::ToUnixMicros(t);
}

std::string StateName(int64_t state) {
  if (state < 0 || state >= kTaskStateCount) {
    return absl::StrCat("state ", state);
  }
  return TaskStateName(static_cast<TaskState>(state));
}

}  // namespace

std::optional<TaskState> ParseTaskState(absl::string_view name) {
  std::string upper = absl::AsciiStrToUpper(name);
  for (int s = 0; s < kTaskStateCount; ++s) {
    if (upper == TaskStateName(static_cast<TaskState>(s))) {
      return static_cast<TaskState>(s);
    }
  }
  return std::nullopt;
}

// The connection and what it needs to reconnect and describe itself.
class AdminStore::Impl {
 public:
  Impl(PGconn* conn, std::string redacted, std::vector<std::string> secrets,
       absl::Duration timeout)
      : conn_(conn),
        redacted_(std::move(redacted)),
        secrets_(std::move(secrets)),
        timeout_(timeout) {}
  ~Impl() { PQfinish(conn_); }

  PGconn* conn() const { return conn_; }

  absl::Status ApplySettings() {
    const std::string ms =
        absl::StrCat(std::max<int64_t>(0, absl::ToInt64Milliseconds(timeout_)));
    return PgExec(conn_,
                  "SELECT set_config('statement_timeout', $1, false), "
                  "set_config('lock_timeout', $1, false), "
                  "set_config('application_name', 'timingwheel-admin', false)",
                  PgParams().Text(ms))
        .status();
  }

  // Re-establishes a connection lost by an earlier call.
  absl::Status EnsureConnected() {
    if (PQstatus(conn_) == CONNECTION_OK) return absl::OkStatus();
    PQreset(conn_);
    schema_checked_ = false;
    if (PQstatus(conn_) != CONNECTION_OK) {
      std::string message = durable_internal::ScrubSecrets(
          durable_internal::PgScrubbed(conn_, PQerrorMessage(conn_)), secrets_);
      while (!message.empty() && message.back() == '\n') message.pop_back();
      return absl::UnavailableError(absl::StrCat(
          "cannot reconnect to PostgreSQL (", redacted_, "): ", message));
    }
    return ApplySettings();
  }

  // OK when the store's schema is the one this library knows.
  absl::Status CheckSchema() {
    if (schema_checked_) return absl::OkStatus();
    absl::StatusOr<durable_internal::SchemaInfo> info =
        durable_internal::ReadSchemaVersion(conn_);
    if (!info.ok()) return info.status();
    if (info->version == 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("no timingwheel store in this database (", redacted_,
                       "): create one with `twctl migrate`"));
    }
    if (info->version < kSchemaVersion) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the store's schema is version ", info->version,
          ", this library's is version ", kSchemaVersion,
          ": upgrade it with `twctl migrate` (see `twctl migrate --dry-run`)"));
    }
    if (info->version > kSchemaVersion) {
      return absl::FailedPreconditionError(
          absl::StrCat("the store's schema is version ", info->version,
                       ", newer than version ", kSchemaVersion,
                       " this library knows: use a newer twctl"));
    }
    schema_checked_ = true;
    return absl::OkStatus();
  }

  // Runs `read` (statements only), reconnecting and retrying once when the
  // connection was lost.
  template <typename T, typename Read>
  absl::StatusOr<T> Reading(const Read& read) {
    absl::StatusOr<T> result;
    for (int attempt = 0; attempt < 2; ++attempt) {
      absl::Status status = EnsureConnected();
      if (!status.ok()) return status;
      status = CheckSchema();
      if (status.ok()) {
        result = read();
        status = result.status();
      }
      if (!absl::IsUnavailable(status)) return result.ok() ? result : status;
    }
    return result;
  }

  absl::StatusOr<StoreStatus> ReadStatus();
  absl::StatusOr<TaskPage> ReadList(const TaskFilter& filter);
  absl::StatusOr<TaskDetail> ReadShow(const std::string& id);

  enum class Write { kCancel, kRetry, kReschedule };
  absl::StatusOr<ActionResult> RunWrite(Write write, const std::string& id,
                                        AdminDue due);

  const std::string& redacted() const { return redacted_; }

 private:
  absl::StatusOr<ActionResult> WriteInTransaction(Write write,
                                                  const std::string& id,
                                                  AdminDue due);

  PGconn* conn_;
  const std::string redacted_;
  const std::vector<std::string> secrets_;
  const absl::Duration timeout_;
  bool schema_checked_ = false;
};

absl::StatusOr<StoreStatus> AdminStore::Impl::ReadStatus() {
  absl::Status status =
      PgExec(conn_, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY").status();
  if (!status.ok()) return status;
  auto body = [this]() -> absl::StatusOr<StoreStatus> {
    StoreStatus out;
    absl::StatusOr<durable_internal::SchemaInfo> info =
        durable_internal::ReadSchemaVersion(conn_);
    if (!info.ok()) return info.status();
    out.schema_version = info->version;
    out.slot_count = info->slot_count;
    absl::StatusOr<PgResult> r = PgExec(conn_, kNowSql);
    if (!r.ok()) return r.status();
    const int64_t now_us = PgRow(*r, 0).Int("now_us");
    out.db_now = FromMicros(now_us);

    r = PgExec(conn_, kNodesSql, PgParams().Int64(now_us));
    if (!r.ok()) return r.status();
    for (int i = 0; i < r->rows(); ++i) {
      PgRow row(*r, i);
      AdminNode node;
      node.node_id = row.Bytes("node_id");
      node.heartbeat = FromMicros(row.Int("heartbeat_us"));
      node.since_heartbeat = out.db_now - node.heartbeat;
      node.slots_held = row.Int("slots_held");
      if (!row.status().ok()) return row.status();
      out.nodes.push_back(std::move(node));
    }

    r = PgExec(conn_, kSlotsSql);
    if (!r.ok()) return r.status();
    for (int i = 0; i < r->rows(); ++i) {
      PgRow row(*r, i);
      AdminSlot slot;
      slot.slot = static_cast<int>(row.Int("slot"));
      slot.owner = row.Bytes("owner");
      slot.epoch = row.Int("epoch");
      const int64_t until = row.Int("lease_until_us");
      slot.lease_until = FromMicros(until);
      slot.lease_valid = !row.IsNull("owner") && until > now_us;
      slot.horizon = absl::Microseconds(row.Int("horizon_us"));
      if (!row.status().ok()) return row.status();
      if (!slot.lease_valid) ++out.slots_unowned;
      out.slots.push_back(std::move(slot));
    }

    r = PgExec(conn_, kCountsSql);
    if (!r.ok()) return r.status();
    for (int i = 0; i < r->rows(); ++i) {
      PgRow row(*r, i);
      const int64_t state = row.Int("state");
      if (state >= 0 && state < kTaskStateCount)
        out.counts[state] = row.Int("n");
      if (!row.status().ok()) return row.status();
    }

    r = PgExec(conn_, kNextDueSql, PgParams().Int64(now_us));
    if (!r.ok()) return r.status();
    if (r->rows() > 0) {
      PgRow row(*r, 0);
      out.next_due = FromMicros(row.Int("due_us"));
      out.next_due_id = row.Bytes("task_id");
    }

    r = PgExec(conn_, kOverdueSql, PgParams().Int64(now_us));
    if (!r.ok()) return r.status();
    PgRow row(*r, 0);
    out.overdue = row.Int("n");
    if (!row.IsNull("due_us")) {
      out.oldest_overdue_due = FromMicros(row.Int("due_us"));
      out.oldest_overdue_id = row.Bytes("task_id");
    }
    if (!row.status().ok()) return row.status();
    return out;
  };
  absl::StatusOr<StoreStatus> out = body();
  status = PgExec(conn_, out.ok() ? "COMMIT" : "ROLLBACK").status();
  if (out.ok() && !status.ok()) return status;
  return out;
}

absl::StatusOr<TaskPage> AdminStore::Impl::ReadList(const TaskFilter& filter) {
  const int64_t state =
      filter.state.has_value() ? static_cast<int64_t>(*filter.state) : -1;
  const int64_t after = filter.due_after.has_value()
                            ? ToMicros(*filter.due_after)
                            : std::numeric_limits<int64_t>::min();
  const int64_t before = filter.due_before.has_value()
                             ? ToMicros(*filter.due_before)
                             : std::numeric_limits<int64_t>::max();
  absl::StatusOr<PgResult> r =
      PgExec(conn_, kListSql,
             PgParams()
                 .Int64(state)
                 .Int64(after)
                 .Int64(before)
                 .Bytes(filter.id_prefix)
                 .Bool(filter.after_id.has_value())
                 .Bytes(filter.after_id.value_or(std::string()))
                 .Int64(filter.limit + 1));
  if (!r.ok()) return r.status();
  TaskPage page;
  for (int i = 0; i < r->rows() && i < filter.limit; ++i) {
    PgRow row(*r, i);
    TaskSummary task;
    task.id = row.Bytes("task_id");
    task.state = static_cast<TaskState>(row.Int("state"));
    task.due = FromMicros(row.Int("due_us"));
    task.attempt = static_cast<int>(row.Int("attempt"));
    task.slot = static_cast<int>(row.Int("slot"));
    task.payload_bytes = row.Int("payload_bytes");
    if (!row.status().ok()) return row.status();
    page.tasks.push_back(std::move(task));
  }
  page.more = r->rows() > filter.limit;
  if (page.more) page.next_after = page.tasks.back().id;
  return page;
}

absl::StatusOr<TaskDetail> AdminStore::Impl::ReadShow(const std::string& id) {
  absl::StatusOr<PgResult> r =
      PgExec(conn_, kShowSql, PgParams().Bytes(id).Int64(kShowPayloadBytes));
  if (!r.ok()) return r.status();
  if (r->rows() == 0) return absl::NotFoundError("no task with this id");
  PgRow row(*r, 0);
  TaskDetail d;
  d.id = id;
  d.state = static_cast<TaskState>(row.Int("state"));
  d.attempt = static_cast<int>(row.Int("attempt"));
  d.due = FromMicros(row.Int("due_us"));
  d.slot = static_cast<int>(row.Int("slot"));
  d.version = row.Int("version");
  d.epoch = row.Int("epoch");
  d.payload_bytes = row.Int("payload_bytes");
  d.payload_head = row.Bytes("payload_head");
  if (!row.IsNull("last_error")) d.last_error = row.Bytes("last_error");
  if (!row.IsNull("finished_us")) {
    d.finished = FromMicros(row.Int("finished_us"));
  }
  d.slot_owner = row.Bytes("owner");
  d.slot_epoch = row.Int("slot_epoch");
  d.slot_lease_until = FromMicros(row.Int("lease_until_us"));
  d.db_now = FromMicros(row.Int("now_us"));
  d.slot_lease_valid = !row.IsNull("owner") && d.slot_lease_until > d.db_now;
  if (!row.status().ok()) return row.status();
  return d;
}

absl::StatusOr<ActionResult> AdminStore::Impl::RunWrite(Write write,
                                                        const std::string& id,
                                                        AdminDue due) {
  absl::Status status = EnsureConnected();
  if (!status.ok()) return status;
  status = CheckSchema();
  if (!status.ok()) return status;
  absl::Status begun = PgExec(conn_, "BEGIN").status();
  if (!begun.ok()) return begun;
  absl::StatusOr<ActionResult> result = WriteInTransaction(write, id, due);
  if (!result.ok() || result->outcome != ActionOutcome::kDone) {
    (void)PgExec(conn_, "ROLLBACK");
    return result;
  }
  status = PgExec(conn_, "COMMIT").status();
  if (!status.ok()) {
    return absl::Status(
        status.code(),
        absl::StrCat(status.message(),
                     " (the change may or may not have been committed: check "
                     "with `twctl show`)"));
  }
  return result;
}

absl::StatusOr<ActionResult> AdminStore::Impl::WriteInTransaction(
    Write write, const std::string& id, AdminDue due) {
  ActionResult result;
  absl::StatusOr<PgResult> r =
      PgExec(conn_, kLockTaskSql, PgParams().Bytes(id));
  if (!r.ok()) return r.status();
  if (r->rows() == 0) {
    result.outcome = ActionOutcome::kNotFound;
    result.message = "no task with this id";
    return result;
  }
  const int64_t state = PgRow(*r, 0).Int("state");
  result.before = static_cast<TaskState>(state);
  const std::string was = StateName(state);
  bool allowed = false;
  const char* verb = "";
  switch (write) {
    case Write::kCancel:
      allowed = state == 0 || state == 1;
      verb = "cancel";
      break;
    case Write::kRetry:
      allowed = state == static_cast<int64_t>(TaskState::kFailed);
      verb = "retry";
      break;
    case Write::kReschedule:
      allowed = state == 0 || state == 1;
      verb = "reschedule";
      break;
  }
  if (!allowed) {
    result.outcome = ActionOutcome::kWrongState;
    result.after = result.before;
    const char* why = "";
    if (write == Write::kRetry) {
      why = ": only a FAILED task can be retried";
    } else if (state == static_cast<int64_t>(TaskState::kRunning)) {
      why = ": its handler is running";
    } else {
      why = ": it has finished";
    }
    result.message = absl::StrCat("cannot ", verb, " a ", was, " task", why);
    return result;
  }
  if (write == Write::kCancel) {
    r = PgExec(conn_, kDeleteTaskSql, PgParams().Bytes(id));
    if (!r.ok()) return r.status();
    result.after = result.before;
    result.message = absl::StrCat("cancelled (was ", was, ")");
    return result;
  }
  const bool relative = due.at == absl::InfinitePast();
  r = PgExec(conn_, write == Write::kRetry ? kRetrySql : kRescheduleSql,
             PgParams()
                 .Bytes(id)
                 .Int64(relative ? absl::ToInt64Microseconds(due.delay)
                                 : ToMicros(due.at))
                 .Bool(relative));
  if (!r.ok()) return r.status();
  PgRow row(*r, 0);
  const int64_t slot = row.Int("slot");
  const int64_t due_us = row.Int("due_us");
  if (!row.status().ok()) return row.status();
  result.after = TaskState::kPending;
  result.due = FromMicros(due_us);
  r = PgExec(conn_, kNotifySql,
             PgParams().Int32(static_cast<int32_t>(slot)).Int64(due_us));
  if (!r.ok()) return r.status();
  result.notified = r->rows() > 0;
  result.message = absl::StrCat(
      write == Write::kRetry ? "retried" : "rescheduled", " (was ", was,
      "), due ",
      absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", result.due, absl::UTCTimeZone()),
      result.notified ? ", owner notified" : "");
  return result;
}

AdminStore::AdminStore(std::unique_ptr<Impl> impl, std::string target)
    : target_(std::move(target)), impl_(std::move(impl)) {}
AdminStore::~AdminStore() = default;

absl::StatusOr<std::unique_ptr<AdminStore>> AdminStore::Connect(
    const std::string& conninfo, absl::Duration statement_timeout) {
  std::vector<std::string> secrets =
      durable_internal::PasswordCandidates(conninfo);
  std::string parse_error;
  if (!durable_internal::ConnInfoParses(conninfo, &parse_error)) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid connection string: ",
                     durable_internal::ScrubSecrets(parse_error, secrets)));
  }
  std::string redacted = durable_internal::RedactedConnInfo(conninfo);
  PGconn* conn = PQconnectdb(conninfo.c_str());
  if (conn == nullptr) {
    return absl::ResourceExhaustedError("libpq: out of memory");
  }
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string message = durable_internal::ScrubSecrets(
        durable_internal::PgScrubbed(conn, PQerrorMessage(conn)), secrets);
    PQfinish(conn);
    while (!message.empty() && message.back() == '\n') message.pop_back();
    return absl::UnavailableError(absl::StrCat("cannot connect to PostgreSQL (",
                                               redacted, "): ", message));
  }
  std::string target = redacted;
  auto impl = std::make_unique<Impl>(conn, std::move(redacted),
                                     std::move(secrets), statement_timeout);
  absl::Status status = impl->ApplySettings();
  if (!status.ok()) return status;
  return std::unique_ptr<AdminStore>(
      new AdminStore(std::move(impl), std::move(target)));
}

absl::StatusOr<absl::Time> AdminStore::DbNow() {
  std::lock_guard<std::mutex> lock(mu_);
  return impl_->Reading<absl::Time>([&]() -> absl::StatusOr<absl::Time> {
    absl::StatusOr<PgResult> r = PgExec(impl_->conn(), kNowSql);
    if (!r.ok()) return r.status();
    return FromMicros(PgRow(*r, 0).Int("now_us"));
  });
}

absl::StatusOr<StoreStatus> AdminStore::Status() {
  std::lock_guard<std::mutex> lock(mu_);
  return impl_->Reading<StoreStatus>([&] { return impl_->ReadStatus(); });
}

absl::StatusOr<TaskPage> AdminStore::List(const TaskFilter& filter) {
  if (filter.limit < 1 || filter.limit > kMaxListLimit) {
    return absl::InvalidArgumentError(absl::StrCat(
        "limit must be in [1, ", kMaxListLimit, "], not ", filter.limit));
  }
  std::lock_guard<std::mutex> lock(mu_);
  return impl_->Reading<TaskPage>([&] { return impl_->ReadList(filter); });
}

absl::StatusOr<TaskDetail> AdminStore::Show(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  return impl_->Reading<TaskDetail>([&] { return impl_->ReadShow(id); });
}

absl::StatusOr<ActionResult> AdminStore::Cancel(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  return impl_->RunWrite(Impl::Write::kCancel, id, AdminDue::Now());
}

absl::StatusOr<ActionResult> AdminStore::Retry(const std::string& id,
                                               AdminDue due) {
  std::lock_guard<std::mutex> lock(mu_);
  return impl_->RunWrite(Impl::Write::kRetry, id, due);
}

absl::StatusOr<ActionResult> AdminStore::Reschedule(const std::string& id,
                                                    AdminDue due) {
  std::lock_guard<std::mutex> lock(mu_);
  return impl_->RunWrite(Impl::Write::kReschedule, id, due);
}

namespace {

SchemaPlan ToSchemaPlan(const durable_internal::MigrationPlan& plan) {
  SchemaPlan out;
  out.from_version = plan.from_version;
  out.to_version = plan.to_version;
  for (const durable_internal::PlannedStep& s : plan.steps) {
    out.steps.push_back({s.from, s.to, s.description, s.sql});
  }
  return out;
}

}  // namespace

absl::StatusOr<SchemaPlan> AdminStore::PlanMigration(int slot_count) {
  if (slot_count < 1 || slot_count > 65536) {
    return absl::InvalidArgumentError("slot count must be in [1, 65536]");
  }
  std::lock_guard<std::mutex> lock(mu_);
  absl::Status status = impl_->EnsureConnected();
  if (!status.ok()) return status;
  absl::StatusOr<durable_internal::MigrationPlan> plan =
      durable_internal::PlanMigration(impl_->conn(), slot_count);
  if (!plan.ok()) return plan.status();
  return ToSchemaPlan(*plan);
}

absl::StatusOr<SchemaPlan> AdminStore::Migrate(int slot_count) {
  if (slot_count < 1 || slot_count > 65536) {
    return absl::InvalidArgumentError("slot count must be in [1, 65536]");
  }
  std::lock_guard<std::mutex> lock(mu_);
  absl::Status status = impl_->EnsureConnected();
  if (!status.ok()) return status;
  absl::StatusOr<durable_internal::MigrationPlan> applied =
      durable_internal::MigrateSchema(impl_->conn(), slot_count, nullptr);
  if (!applied.ok()) return applied.status();
  return ToSchemaPlan(*applied);
}

}  // namespace timingwheel
