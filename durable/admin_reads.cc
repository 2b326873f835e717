// Copyright 2026 The timingwheel Authors.
//
// AdminStore's reads: status, list, show. Every statement is constant text
// with $n parameters; every row is read by column name (PgRow).

#include <limits>
#include <string>
#include <utility>

#include "durable/admin_store.h"
#include "durable/admin_store_impl.h"
#include "durable/migrations.h"
#include "durable/pg_exec.h"
#include "durable/pg_params.h"
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

}  // namespace timingwheel
