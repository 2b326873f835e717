// Copyright 2026 The timingwheel Authors.
//
// The give-back statement: a full wheel keeps the earliest rows and hands
// the later ones it had claimed back to PENDING (StoreApi::Unclaim()).

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "durable/sql/pg_exec.h"
#include "durable/sql/pg_params.h"
#include "durable/sql/store.h"
#include "libpq-fe.h"

namespace timingwheel {
namespace durable_internal {
namespace {

// Each row by its key (a fenced LATERAL per entry, a nested loop over the
// primary key whatever the statistics say), still SCHEDULED under the
// epoch and due time the wheel held: a row claimed since by a new owner
// (another epoch), fired, replaced or cancelled is left alone.
constexpr char kUnclaimSql[] = R"sql(
UPDATE tw_timer t SET state = 0, version = nextval('tw_version_seq')
FROM (
  SELECT x.tid
  FROM unnest($1::bytea[], $2::int8[], $3::int8[]) AS u(task_id, epoch, due_us),
       LATERAL (
         SELECT t.ctid AS tid FROM tw_timer t
         WHERE t.task_id = u.task_id AND t.state = 1 AND t.epoch = u.epoch
           AND t.due_us = u.due_us
         OFFSET 0) x) b
WHERE t.ctid = b.tid AND t.state = 1
)sql";

}  // namespace

absl::StatusOr<int64_t> Store::Unclaim(absl::Span<const WheelEntry> entries) {
  if (entries.empty()) return 0;
  std::vector<absl::string_view> ids;
  std::vector<int64_t> epochs, dues;
  for (const WheelEntry& e : entries) {
    ids.push_back(e.id);
    epochs.push_back(e.epoch);
    dues.push_back(e.due_us);
  }
  absl::StatusOr<PgResult> r =
      PgExec(conn_, kUnclaimSql,
             PgParams().BytesArray(ids).Int64Array(epochs).Int64Array(dues));
  if (!r.ok()) return r.status();
  int64_t count = 0;
  (void)absl::SimpleAtoi(PQcmdTuples(r->get()), &count);
  return count;
}

}  // namespace durable_internal
}  // namespace timingwheel
