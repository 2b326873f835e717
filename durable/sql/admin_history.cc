// Copyright 2026 The timingwheel Authors.
//
// AdminStore's reads of one task: `Show()` with the task's attempt history
// (tw_attempt), in one snapshot; and the check of a kind filter. Every
// statement is constant text with $n parameters; every row is read by
// column name (PgRow).

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "durable/admin_store.h"
#include "durable/sql/admin_store_impl.h"
#include "durable/sql/pg_exec.h"
#include "durable/sql/pg_params.h"
#include "libpq-fe.h"

namespace timingwheel {

using admin_internal::FromMicros;
using durable_internal::PgExec;
using durable_internal::PgParams;
using durable_internal::PgResult;
using durable_internal::PgRow;

namespace {

constexpr char kShowSql[] = R"sql(
SELECT t.state, t.attempt, t.due_us, t.slot, t.version, t.epoch,
       octet_length(t.payload) AS payload_bytes,
       substring(t.payload FROM 1 FOR $2::integer) AS payload_head,
       t.last_error, t.finished_us, t.kind, t.priority,
       l.owner, l.epoch AS slot_epoch, l.lease_until_us,
       tw_now_us() AS now_us
FROM tw_timer t LEFT JOIN tw_slot_lease l ON l.slot = t.slot
WHERE t.task_id = $1
)sql";

// The newest $2 attempt records of task $1 (tw_attempt_task's order,
// backwards), returned oldest first, each with the count of all of them
// (the window is computed before the LIMIT).
constexpr char kAttemptsSql[] = R"sql(
SELECT attempt, outcome, node_id, started_us, finished_us, error, total
FROM (SELECT attempt, outcome, node_id, started_us, finished_us, error,
             count(*) OVER () AS total
      FROM tw_attempt WHERE task_id = $1
      ORDER BY finished_us DESC, attempt DESC, started_us DESC
      LIMIT $2) AS newest
ORDER BY finished_us, attempt, started_us
)sql";

// Whether `text` is valid UTF-8 without C0 controls or DEL (U+0080 to
// U+009F, C1 controls, are refused too).
absl::Status CheckUtf8Printable(absl::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) {
      return absl::InvalidArgumentError(
          absl::StrCat("a kind holds no control characters (byte ", i, ")"));
    }
    if (c < 0x80) {
      ++i;
      continue;
    }
    int length = 0;
    uint32_t code = 0;
    if ((c & 0xe0) == 0xc0) {
      length = 2;
      code = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
      length = 3;
      code = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
      length = 4;
      code = c & 0x07;
    }
    bool ok = length > 0 && i + length <= text.size();
    for (int k = 1; ok && k < length; ++k) {
      const unsigned char cc = static_cast<unsigned char>(text[i + k]);
      ok = (cc & 0xc0) == 0x80;
      code = (code << 6) | (cc & 0x3f);
    }
    // Shortest forms only, no surrogates, at most U+10FFFF.
    static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    ok = ok && code >= kMin[length] && code <= 0x10ffff &&
         (code < 0xd800 || code > 0xdfff);
    if (!ok) {
      return absl::InvalidArgumentError(
          absl::StrCat("a kind is valid UTF-8 (not at byte ", i, ")"));
    }
    if (code >= 0x80 && code <= 0x9f) {
      return absl::InvalidArgumentError(
          absl::StrCat("a kind holds no control characters (byte ", i, ")"));
    }
    i += length;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckKindFilter(absl::string_view kind) {
  if (kind.size() > static_cast<size_t>(kMaxKindBytes)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a kind is at most ", kMaxKindBytes, " bytes, not ", kind.size()));
  }
  return CheckUtf8Printable(kind);
}

absl::StatusOr<TaskDetail> AdminStore::Impl::ReadShow(const std::string& id) {
  absl::Status status =
      PgExec(conn_, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY").status();
  if (!status.ok()) return status;
  auto body = [&]() -> absl::StatusOr<TaskDetail> {
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
    d.kind = row.Bytes("kind");
    d.priority = static_cast<int>(row.Int("priority"));
    d.slot_owner = row.Bytes("owner");
    d.slot_epoch = row.Int("slot_epoch");
    d.slot_lease_until = FromMicros(row.Int("lease_until_us"));
    d.db_now = FromMicros(row.Int("now_us"));
    d.slot_lease_valid = !row.IsNull("owner") && d.slot_lease_until > d.db_now;
    if (!row.status().ok()) return row.status();

    r = PgExec(conn_, kAttemptsSql,
               PgParams().Bytes(id).Int64(kMaxShownAttempts));
    if (!r.ok()) return r.status();
    for (int i = 0; i < r->rows(); ++i) {
      PgRow a(*r, i);
      AttemptRecord record;
      record.attempt = static_cast<int>(a.Int("attempt"));
      record.outcome = static_cast<AttemptOutcome>(a.Int("outcome"));
      record.node_id = a.Bytes("node_id");
      record.started = FromMicros(a.Int("started_us"));
      record.finished = FromMicros(a.Int("finished_us"));
      record.error = a.Bytes("error");
      d.attempts_total = a.Int("total");
      if (!a.status().ok()) return a.status();
      d.attempts.push_back(std::move(record));
    }
    return d;
  };
  absl::StatusOr<TaskDetail> out = body();
  status = PgExec(conn_, out.ok() ? "COMMIT" : "ROLLBACK").status();
  if (out.ok() && !status.ok()) return status;
  return out;
}

}  // namespace timingwheel
