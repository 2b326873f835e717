// Copyright 2026 The timingwheel Authors.
//
// AdminStore's reads: status, list (show and the attempt history are in
// admin_history.cc). Every statement is constant text with $n parameters;
// every row is read by column name (PgRow).

#include <limits>
#include <map>
#include <string>
#include <utility>

#include "durable/admin_store.h"
#include "durable/sql/admin_store_impl.h"
#include "durable/sql/migrations.h"
#include "durable/sql/pg_exec.h"
#include "durable/sql/pg_params.h"
#include "libpq-fe.h"

namespace timingwheel {

using admin_internal::FromMicros;
using admin_internal::StateName;
using admin_internal::ToMicros;
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

// Counts by state and kind (one scan: the kinds' counts come with it).
constexpr char kCountsSql[] = R"sql(
SELECT state, kind, count(*) AS n FROM tw_timer GROUP BY state, kind
)sql";

// The task table's size, and its updates as the statistics count them.
constexpr char kTaskTableSql[] = R"sql(
SELECT pg_total_relation_size('tw_timer'::regclass) AS bytes,
       coalesce(s.n_tup_upd, 0) AS updates,
       coalesce(s.n_tup_hot_upd, 0) AS hot_updates
FROM (SELECT 1) one
LEFT JOIN pg_stat_user_tables s ON s.relid = 'tw_timer'::regclass
)sql";

constexpr char kKindsSql[] = R"sql(
SELECT kind, node_id, registered_us FROM tw_kind
)sql";

// The next PENDING or SCHEDULED task still to come.
constexpr char kNextDueSql[] = R"sql(
SELECT task_id, due_us FROM tw_timer
WHERE finished_us IS NULL AND state < 2 AND due_us > $1
ORDER BY due_us, task_id LIMIT 1
)sql";

// PENDING or SCHEDULED tasks whose due time has passed, and the oldest.
constexpr char kOverdueSql[] = R"sql(
WITH o AS (SELECT task_id, due_us FROM tw_timer
           WHERE finished_us IS NULL AND state < 2 AND due_us <= $1)
SELECT (SELECT count(*) FROM o) AS n, oldest.task_id, oldest.due_us
FROM (SELECT 1) AS one
LEFT JOIN (SELECT task_id, due_us FROM o ORDER BY due_us, task_id LIMIT 1)
  AS oldest ON true
)sql";

// Overdue (PENDING or SCHEDULED, due by $1) tasks by kind.
constexpr char kOverdueByKindSql[] = R"sql(
SELECT kind, count(*) AS n FROM tw_timer
WHERE finished_us IS NULL AND state < 2 AND due_us <= $1 GROUP BY kind
)sql";

// Each kind's waiting tasks whose last attempt was snoozed for want of a
// handler: their last error begins with $1 (kNoHandlerErrorPrefix).
constexpr char kPutOffByKindSql[] = R"sql(
SELECT kind, count(*) AS n FROM tw_timer
WHERE finished_us IS NULL AND state < 2
  AND substring(last_error FROM 1 FOR octet_length($1::bytea)) = $1::bytea
GROUP BY kind
)sql";

// Each kind's tasks finished since $1, SUCCESS and FAILED.
constexpr char kRecentByKindSql[] = R"sql(
SELECT kind, count(*) FILTER (WHERE state = 3) AS succeeded,
       count(*) FILTER (WHERE state = 4) AS failed
FROM tw_timer WHERE finished_us >= $1 GROUP BY kind
)sql";

// $1 state (-1: any), [$2, $3) due range, $4 id prefix, $5 paging on,
// $6 the last id of the previous page, $7 the limit, $8 kind filter on,
// $9 the kind.
constexpr char kListSql[] = R"sql(
SELECT task_id, state, due_us, attempt, slot,
       octet_length(payload) AS payload_bytes, kind, priority
FROM tw_timer
WHERE ($1 < 0 OR state = $1)
  AND due_us >= $2 AND due_us < $3
  AND task_id >= $4 AND substring(task_id FROM 1 FOR length($4)) = $4
  AND (NOT $5 OR task_id > $6)
  AND (NOT $8 OR kind = $9)
  AND ($10 = 0 OR (substring(task_id FROM 1 FOR 13)
                   = '\x1b74772d7363686564756c653a'::bytea) = ($10 = 2))
ORDER BY task_id LIMIT $7
)sql";

}  // namespace

absl::StatusOr<absl::Time> AdminStore::Impl::ReadNow() {
  absl::StatusOr<PgResult> r = PgExec(conn_, kNowSql);
  if (!r.ok()) return r.status();
  return FromMicros(PgRow(*r, 0).Int("now_us"));
}

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

    // The kinds: registered ones, and those tasks carry, by kind.
    std::map<std::string, AdminKind> kinds;
    r = PgExec(conn_, kCountsSql);
    if (!r.ok()) return r.status();
    for (int i = 0; i < r->rows(); ++i) {
      PgRow row(*r, i);
      const int64_t state = row.Int("state");
      const int64_t n = row.Int("n");
      const std::string kind = row.Bytes("kind");
      if (!row.status().ok()) return row.status();
      if (state < 0 || state >= kTaskStateCount) continue;
      out.counts[state] += n;
      AdminKind& k = kinds[kind];
      k.kind = kind;
      k.counts[state] += n;
    }
    r = PgExec(conn_, kKindsSql);
    if (!r.ok()) return r.status();
    for (int i = 0; i < r->rows(); ++i) {
      PgRow row(*r, i);
      const std::string kind = row.Bytes("kind");
      AdminKind& k = kinds[kind];
      k.kind = kind;
      k.registered = true;
      k.node_id = row.Bytes("node_id");
      k.registered_at = FromMicros(row.Int("registered_us"));
      if (!row.status().ok()) return row.status();
    }
    // A (kind, n) query's counts into each kind's `field`.
    auto count_by_kind = [&](const char* sql, const PgParams& params,
                             int64_t AdminKind::*field) -> absl::Status {
      absl::StatusOr<PgResult> counted = PgExec(conn_, sql, params);
      if (!counted.ok()) return counted.status();
      for (int i = 0; i < counted->rows(); ++i) {
        PgRow row(*counted, i);
        const std::string kind = row.Bytes("kind");
        const int64_t n = row.Int("n");
        if (!row.status().ok()) return row.status();
        AdminKind& k = kinds[kind];
        k.kind = kind;
        k.*field = n;
      }
      return absl::OkStatus();
    };
    absl::Status counted = count_by_kind(
        kOverdueByKindSql, PgParams().Int64(now_us), &AdminKind::overdue);
    if (!counted.ok()) return counted;
    counted = count_by_kind(
        kPutOffByKindSql, PgParams().Bytes(std::string(kNoHandlerErrorPrefix)),
        &AdminKind::put_off_no_handler);
    if (!counted.ok()) return counted;
    r = PgExec(conn_, kRecentByKindSql,
               PgParams().Int64(now_us -
                                absl::ToInt64Microseconds(kKindRecentWindow)));
    if (!r.ok()) return r.status();
    for (int i = 0; i < r->rows(); ++i) {
      PgRow row(*r, i);
      const std::string kind = row.Bytes("kind");
      const int64_t succeeded = row.Int("succeeded");
      const int64_t failed = row.Int("failed");
      if (!row.status().ok()) return row.status();
      AdminKind& k = kinds[kind];
      k.kind = kind;
      k.succeeded_recently = succeeded;
      k.failed_recently = failed;
    }
    for (auto& [name, kind] : kinds) out.kinds.push_back(std::move(kind));

    r = PgExec(conn_, kNextDueSql, PgParams().Int64(now_us));
    if (!r.ok()) return r.status();
    if (r->rows() > 0) {
      PgRow row(*r, 0);
      out.next_due = FromMicros(row.Int("due_us"));
      out.next_due_id = row.Bytes("task_id");
    }

    r = PgExec(conn_, kTaskTableSql);
    if (!r.ok()) return r.status();
    PgRow table(*r, 0);
    out.task_table_bytes = table.Int("bytes");
    out.task_updates = table.Int("updates");
    out.task_hot_updates = table.Int("hot_updates");
    if (!table.status().ok()) return table.status();

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
                 .Int64(filter.limit + 1)
                 .Bool(filter.kind.has_value())
                 .Text(filter.kind.value_or(std::string()))
                 .Int32(static_cast<int32_t>(filter.occurrences)));
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
    task.kind = row.Bytes("kind");
    task.priority = static_cast<int>(row.Int("priority"));
    if (!row.status().ok()) return row.status();
    page.tasks.push_back(std::move(task));
  }
  page.more = r->rows() > filter.limit;
  if (page.more) page.next_after = page.tasks.back().id;
  return page;
}

}  // namespace timingwheel
