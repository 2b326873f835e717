// Copyright 2026 The timingwheel Authors.
//
// The node id's statements: take it (waiting for a predecessor's session
// to end), take it again after a reconnect, and take it over from a stale
// holder (a stopped or hung process whose leases have all expired).
//
// The id is held by two session-level advisory locks, taken in this order:
// the database's, on hashtextextended('timingwheel node ' || id, 0) (what
// earlier versions take: one id per database, across schemas and
// versions), then the schema's, on hashtextextended('timingwheel node ' ||
// quote_ident(current_schema()) || '.' || id, 0). Only a holder of the
// schema's lock is judged and ended by a takeover: a scheduler of another
// schema with the same id is judged by its own schema's tables, which this
// one cannot read, so it is left alone (refused, never ended). pg_locks
// shows such a lock with classid = the key's high 32 bits, objid = its low
// 32 bits and objsubid = 1.

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "durable/sql/pg_exec.h"
#include "durable/sql/pg_params.h"
#include "durable/sql/store.h"
#include "libpq-fe.h"

namespace timingwheel {
namespace durable_internal {
namespace {

// The database's and the schema's lock keys for node id $1.
#define TW_NODE_DB_KEY "hashtextextended('timingwheel node ' || $1, 0)"
#define TW_NODE_SCHEMA_KEY                  \
  "hashtextextended('timingwheel node ' ||" \
  " quote_ident(coalesce(current_schema(), '')) || '.' || $1, 0)"

// The CTEs `k` (the schema's lock key for node id $1) and `holder` (the
// other sessions holding it in this database), shared by the statements
// below.
#define TW_NODE_LOCK_HOLDERS                                           \
  "k AS (SELECT " TW_NODE_SCHEMA_KEY                                   \
  " AS key),\n"                                                        \
  "holder AS (\n"                                                      \
  "  SELECT l.pid FROM pg_locks l, k\n"                                \
  "  WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1\n" \
  "    AND l.database = (SELECT oid FROM pg_database\n"                \
  "                      WHERE datname = current_database())\n"        \
  "    AND l.classid = ((k.key >> 32) & 4294967295)::oid\n"            \
  "    AND l.objid = (k.key & 4294967295)::oid\n"                      \
  "    AND l.pid <> pg_backend_pid()),\n"

// The database's lock first (waits), then the schema's (free once the
// database's is held; a select list is evaluated in order).
constexpr char kLockSql[] = "SELECT pg_advisory_lock(" TW_NODE_DB_KEY
                            "), pg_advisory_lock(" TW_NODE_SCHEMA_KEY ")";

// Takes the lock if free. When it is not, and a holder carries this
// session's own tag ($2: a former session of this process, not yet ended
// by the server), ends it. `holder`: the other sessions holding the node
// id's lock in this database.
constexpr char kRelockSql[] = R"sql(
WITH got AS (
  SELECT CASE WHEN pg_try_advisory_lock()sql" TW_NODE_DB_KEY R"sql()
              THEN pg_try_advisory_lock()sql" TW_NODE_SCHEMA_KEY R"sql()
              ELSE false END AS got),
)sql" TW_NODE_LOCK_HOLDERS R"sql(own AS MATERIALIZED (
  SELECT a.pid FROM pg_stat_activity a, got
  WHERE NOT got.got AND $2 <> '' AND a.application_name = $2
    AND a.pid IN (SELECT pid FROM holder)),
ended AS MATERIALIZED (
  SELECT pg_terminate_backend(own.pid) AS ended FROM own)
SELECT got.got::int AS got,
       (SELECT count(*) FROM ended WHERE ended.ended) AS ended
FROM got
)sql";

// Judges the holder (of the schema's lock: one of this schema's
// schedulers) on the database's clock: live while a heartbeat of the
// id is younger than the TTL ($2) or a lease of the id is still valid, or
// while a holding session is younger than the TTL (on the server's own
// clock): a scheduler still starting, which took the id and has not
// written its first heartbeat yet. A holding session whose start this user
// cannot read (pg_stat_activity hides backend_start of another role's
// sessions without pg_read_all_stats) may be one still starting: it counts
// as live, and `unseen` says so, for a clear refusal.
// Only when stale, ends the holder's sessions and the other sessions of
// this database carrying its tag as its user (its renewals' and its
// client's connections; a tag is no secret, pg_stat_activity shows it, so
// a session of another role that copied it is never ended for it). One
// statement, so that the judgement and the ending see the same moment.
// pg_terminate_backend runs only in the select list over a MATERIALIZED
// set: in a WHERE clause the planner may call it before the other
// conditions, on every session (it did: the statement ended its own).
constexpr char kTakeOverSql[] = "WITH " TW_NODE_LOCK_HOLDERS R"sql(
n AS (SELECT tw_now_us() AS now),
recorded AS (
  SELECT EXISTS (SELECT FROM tw_node, n
                 WHERE node_id = $1 AND heartbeat_us > n.now - $2)
      OR EXISTS (SELECT FROM tw_slot_lease, n
                 WHERE owner = $1 AND lease_until_us > n.now) AS live),
live AS (
  SELECT (SELECT recorded.live FROM recorded)
      OR EXISTS (SELECT FROM pg_stat_activity a
                 WHERE a.pid IN (SELECT pid FROM holder)
                   AND (a.backend_start IS NULL
                        OR a.backend_start >
                           clock_timestamp() - $2 * interval '1 microsecond'))
      AS live,
    EXISTS (SELECT FROM pg_stat_activity a
            WHERE a.pid IN (SELECT pid FROM holder)
              AND a.backend_start IS NULL) AS unseen),
victim AS MATERIALIZED (
  SELECT a.pid FROM pg_stat_activity a, live
  WHERE NOT live.live AND a.pid <> pg_backend_pid()
    AND a.datname = current_database()
    AND (a.pid IN (SELECT pid FROM holder)
         OR (a.application_name LIKE 'timingwheel scheduler %'
             AND (a.application_name, a.usesysid) IN (
               SELECT h.application_name, h.usesysid FROM pg_stat_activity h
               WHERE h.pid IN (SELECT pid FROM holder))))),
ended AS MATERIALIZED (
  SELECT pg_terminate_backend(victim.pid) AS ended FROM victim)
SELECT live.live::int AS live, live.unseen::int AS unseen,
       (SELECT recorded.live FROM recorded)::int AS recorded,
       (SELECT count(*) FROM ended WHERE ended.ended) AS ended
FROM live
)sql";

}  // namespace

absl::StatusOr<bool> Store::LockNode(const std::string& node) {
  // Waits (bounded by the session's lock_timeout): a process restarted
  // right after a crash finds its predecessor's session still ending.
  absl::StatusOr<PgResult> r = PgExec(conn_, kLockSql, PgParams().Text(node));
  if (absl::IsDeadlineExceeded(r.status())) return false;
  if (!r.ok()) return r.status();
  return true;
}

absl::StatusOr<NodeRelock> Store::RelockNode(const std::string& node) {
  absl::StatusOr<PgResult> r = PgExec(
      conn_, kRelockSql, PgParams().Text(node).Text(limits_.application_name));
  if (!r.ok()) return r.status();
  if (r->rows() != 1) return absl::InternalError("relock: no row");
  PgRow row(*r, 0);
  const bool got = row.Int("got") != 0;
  const int64_t ended = row.Int("ended");
  if (!row.status().ok()) return row.status();
  if (got) return NodeRelock::kHeld;
  // Ended, or released between the try and the look (try again): ours.
  if (ended > 0) return NodeRelock::kOwnSession;
  return NodeRelock::kTakenByOther;
}

absl::StatusOr<bool> Store::TakeOverNode(const std::string& node,
                                         int64_t ttl_us) {
  absl::StatusOr<PgResult> r =
      PgExec(conn_, kTakeOverSql, PgParams().Text(node).Int64(ttl_us));
  if (absl::IsPermissionDenied(r.status())) {
    const char* user = PQuser(conn_);
    const std::string who = user != nullptr ? user : "?";
    return absl::PermissionDeniedError(absl::StrCat(
        "node_id \"", node,
        "\" is held by a stopped or hung process whose leases have all "
        "expired, but PostgreSQL refused user \"",
        who,
        "\" to end its sessions (pg_terminate_backend): run the schedulers "
        "as the same user as that process, or `GRANT pg_signal_backend TO "
        "\"",
        who,
        "\"` (not enough for a superuser's sessions), or have a superuser "
        "end them (docs/operating.md, \"A stuck node\")"));
  }
  if (!r.ok()) return r.status();
  if (r->rows() != 1) return absl::InternalError("takeover: no row");
  PgRow row(*r, 0);
  const bool live = row.Int("live") != 0;
  const bool unseen = row.Int("unseen") != 0;
  // A heartbeat or a lease says live whoever holds the id: a live
  // duplicate, refused by the caller as such.
  const bool recorded = row.Int("recorded") != 0;
  if (!row.status().ok()) return row.status();
  if (live && unseen && !recorded) {
    const char* user = PQuser(conn_);
    const std::string who = user != nullptr ? user : "?";
    return absl::PermissionDeniedError(absl::StrCat(
        "node_id \"", node,
        "\" is held by a session of another database user, and user \"", who,
        "\" cannot read when that session started (pg_stat_activity hides it "
        "without pg_read_all_stats): it may be a scheduler still starting, "
        "so it is not ended. Give each scheduler its own node_id, run the "
        "schedulers as one user, `GRANT pg_read_all_stats, pg_signal_backend "
        "TO \"",
        who,
        "\"` (to judge and end another user's sessions; not enough for a "
        "superuser's), or have a superuser end the old sessions "
        "(docs/operating.md, \"A stuck node\")"));
  }
  return !live;
}

}  // namespace durable_internal
}  // namespace timingwheel
