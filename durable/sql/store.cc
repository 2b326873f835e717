// Copyright 2026 The timingwheel Authors.
//
// The store's connection: connect, session limits, reconnect, the schema,
// prepared statements and notifications. The statements live beside their
// callers: store_insert.cc (clients), store_leases.cc (leases),
// store_node.cc (the node id), store_attempts.cc (loads, fires, outcomes),
// store_replace.cc, store_cancel.cc.

#include "durable/sql/store.h"

#include <poll.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "durable/sql/pg_exec.h"
#include "durable/sql/pg_params.h"
#include "durable/sql/redact.h"
#include "durable/sql/store_internal.h"
#include "libpq-fe.h"

namespace timingwheel {
namespace durable_internal {
namespace {

static_assert(static_cast<int>(TaskState::kPending) == 0, "");
static_assert(static_cast<int>(TaskState::kScheduled) == 1, "");
static_assert(static_cast<int>(TaskState::kRunning) == 2, "");
static_assert(static_cast<int>(TaskState::kSuccess) == 3, "");
static_assert(static_cast<int>(TaskState::kFailed) == 4, "");

// LISTEN on both channels: slots' wake-ups, and running tasks to stop (one
// statement each: the extended protocol takes one at a time).
absl::Status ListenToBoth(PGconn* conn) {
  absl::Status status = PgExec(conn, "LISTEN timingwheel").status();
  if (!status.ok()) return status;
  return PgExec(conn, "LISTEN timingwheel_stop").status();
}

// Server notices (NOTICE, WARNING) are not errors; libpq would print them.
void IgnoreNotice(void*, const char*) {}

}  // namespace

std::string RedactedConnInfo(const std::string& conninfo) {
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(conninfo.c_str(), &error);
  if (options == nullptr) {
    PQfreemem(error);
    return "(unparsable connection string)";
  }
  std::string out;
  for (PQconninfoOption* o = options; o->keyword != nullptr; ++o) {
    if (o->val == nullptr) continue;
    absl::string_view key(o->keyword);
    if (key == "host" || key == "hostaddr" || key == "port" ||
        key == "dbname" || key == "user") {
      absl::StrAppend(&out, out.empty() ? "" : " ", key, "=", o->val);
    }
  }
  PQconninfoFree(options);
  return out.empty() ? "(defaults)" : out;
}

Store::~Store() { PQfinish(conn_); }

absl::StatusOr<std::unique_ptr<Store>> Store::Connect(
    const std::string& conninfo, SessionLimits limits) {
  std::vector<std::string> secrets = PasswordCandidates(conninfo);
  std::string parse_error;
  if (!ConnInfoParses(conninfo, &parse_error)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "invalid connection string: ", ScrubSecrets(parse_error, secrets)));
  }
  std::string redacted = RedactedConnInfo(conninfo);
  PGconn* conn = PQconnectdb(conninfo.c_str());
  if (conn == nullptr) {
    return absl::ResourceExhaustedError("libpq: out of memory");
  }
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string message =
        ScrubSecrets(PgScrubbed(conn, PQerrorMessage(conn)), secrets);
    PQfinish(conn);
    return PgConnectError(redacted, message);
  }
  PQsetNoticeProcessor(conn, &IgnoreNotice, nullptr);
  std::unique_ptr<Store> store(
      new Store(conn, std::move(redacted), std::move(secrets), limits));
  absl::Status status = store->ApplyLimits();
  if (!status.ok()) return status;
  return store;
}

absl::Status Store::ApplyLimits() {
  if (limits_.transaction_pooler) return absl::OkStatus();
  if (limits_.statement_timeout_ms > 0 || limits_.lock_timeout_ms > 0) {
    absl::Status status =
        PgExec(conn_,
               "SELECT set_config('statement_timeout', $1, false), "
               "set_config('lock_timeout', $2, false)",
               PgParams()
                   .Text(absl::StrCat(
                       std::max<int64_t>(0, limits_.statement_timeout_ms)))
                   .Text(absl::StrCat(
                       std::max<int64_t>(0, limits_.lock_timeout_ms))))
            .status();
    if (!status.ok()) return status;
  }
  if (limits_.application_name.empty()) return absl::OkStatus();
  return PgExec(conn_, "SELECT set_config('application_name', $1, false)",
                PgParams().Text(limits_.application_name))
      .status();
}

absl::Status Store::Reconnect() {
  PQreset(conn_);
  prepared_.clear();  // A new session: its statements are not prepared.
  if (PQstatus(conn_) != CONNECTION_OK) {
    std::string message =
        ScrubSecrets(PgScrubbed(conn_, PQerrorMessage(conn_)), secrets_);
    while (!message.empty() && message.back() == '\n') message.pop_back();
    return absl::UnavailableError(absl::StrCat(
        "cannot reconnect to PostgreSQL (", redacted_, "): ", message));
  }
  absl::Status status = ApplyLimits();
  if (!status.ok()) return status;
  if (listening_) return ListenToBoth(conn_);
  return absl::OkStatus();
}

absl::Status Store::EnsureSchema(int slot_count) {
  SchemaInfo info;
  absl::StatusOr<MigrationPlan> applied =
      MigrateSchema(conn_, slot_count, &info);
  if (!applied.ok()) return applied.status();
  if (info.slot_count != slot_count) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the store has ", info.slot_count, " slots, this process asks for ",
        slot_count, ": the slot count is fixed when the store is created"));
  }
  return absl::OkStatus();
}

absl::Status Store::CheckSchema(int slot_count) {
  absl::StatusOr<SchemaInfo> info = ReadSchemaVersion(conn_);
  if (!info.ok()) return info.status();
  const std::string fix = absl::StrCat(
      ": run `twctl --db '", redacted_, "' migrate --slot-count ", slot_count,
      "` as the database's owner (`migrate --dry-run` prints the SQL first), "
      "or let a process with `migrate_schema = true` do it");
  if (info->version == 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "no timingwheel store in this database yet, and migrate_schema is "
        "false",
        fix));
  }
  if (info->version < kSchemaVersion) {
    return absl::FailedPreconditionError(
        absl::StrCat("the store's schema is at version ", info->version,
                     ", this library needs version ", kSchemaVersion,
                     ", and migrate_schema is false", fix));
  }
  if (info->version > kSchemaVersion) {
    return absl::FailedPreconditionError(
        absl::StrCat("the database holds timingwheel schema version ",
                     info->version, ", newer than the version ", kSchemaVersion,
                     " this library understands: upgrade the library"));
  }
  if (info->slot_count != slot_count) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the store has ", info->slot_count, " slots, this process asks for ",
        slot_count, ": the slot count is fixed when the store is created"));
  }
  return absl::OkStatus();
}

absl::StatusOr<PgResult> Store::ExecPrepared(const char* name, const char* sql,
                                             const PgParams& params) {
  if (limits_.transaction_pooler) return PgExec(conn_, sql, params);
  for (int attempt = 0;; ++attempt) {
    if (!prepared_.contains(name)) {
      absl::StatusOr<PgResult> prepared = PgCheckResult(
          conn_,
          PgResult(PQprepare(conn_, name, sql, params.size(), params.types())));
      if (!prepared.ok()) {
        if (absl::StrContains(prepared.status().message(), "already exists")) {
          // duplicate_prepared_statement on a connection that never
          // prepared it: another client's, shared through a pooler.
          return absl::FailedPreconditionError(absl::StrCat(
              prepared.status().message(),
              " (the connection goes through a pooler in transaction mode? "
              "set DurableClientOptions::transaction_pooler: "
              "docs/durable.md, \"Behind PgBouncer\")"));
        }
        return prepared.status();
      }
      prepared_.insert(name);
    }
    PgResult result(PQexecPrepared(conn_, name, params.size(), params.values(),
                                   params.lengths(), params.formats(),
                                   /*resultFormat=*/1));
    const char* sqlstate = PQresultErrorField(result.get(), PG_DIAG_SQLSTATE);
    if (attempt == 0 && sqlstate != nullptr &&
        absl::string_view(sqlstate) == "26000") {
      // invalid_sql_statement_name: the session lost it (DEALLOCATE, or a
      // server-side reset); prepare it again once.
      prepared_.erase(name);
      continue;
    }
    return PgCheckResult(conn_, std::move(result));
  }
}

absl::Status Store::Listen() {
  absl::Status status = ListenToBoth(conn_);
  if (status.ok()) listening_ = true;
  return status;
}

int Store::socket() const { return PQsocket(conn_); }

absl::Status Store::DrainNotifications(std::vector<int>* slots,
                                       std::vector<LiveAttempt>* stops) {
  if (PQconsumeInput(conn_) == 0) {
    return absl::UnavailableError(
        absl::StrCat("PostgreSQL connection lost: ",
                     PgScrubbed(conn_, PQerrorMessage(conn_))));
  }
  while (PGnotify* note = PQnotifies(conn_)) {
    if (absl::string_view(note->relname) == "timingwheel_stop") {
      // A running task was cancelled: its id, hex-encoded, and ':' and the
      // version of the row deleted (absent from older releases: 0).
      if (stops != nullptr) {
        const absl::string_view extra(note->extra);
        const size_t colon = extra.find(':');
        LiveAttempt stop;
        stop.id = absl::HexStringToBytes(extra.substr(0, colon));
        if (colon == absl::string_view::npos ||
            !absl::SimpleAtoi(extra.substr(colon + 1), &stop.version)) {
          stop.version = 0;
        }
        stops->push_back(std::move(stop));
      }
      PQfreemem(note);
      continue;
    }
    if (absl::string_view(note->extra) == "*") slots->push_back(kAllSlots);
    for (absl::string_view part : absl::StrSplit(note->extra, ',')) {
      int slot = 0;
      if (absl::SimpleAtoi(part, &slot)) slots->push_back(slot);
    }
    PQfreemem(note);
  }
  return absl::OkStatus();
}

}  // namespace durable_internal
}  // namespace timingwheel
