// Copyright 2026 The timingwheel Authors.

#include "benchmarks/baselines/polling_scheduler.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "libpq-fe.h"

namespace timingwheel {
namespace bench {
namespace {

constexpr char kSchemaSql[] = R"sql(
CREATE TABLE IF NOT EXISTS poll_timer (
  task_id text PRIMARY KEY,
  due_us bigint NOT NULL,
  state smallint NOT NULL DEFAULT 0,
  owner text,
  locked_until_us bigint NOT NULL DEFAULT 0,
  attempt integer NOT NULL DEFAULT 0,
  payload bytea NOT NULL,
  finished_us bigint);
CREATE INDEX IF NOT EXISTS poll_timer_due ON poll_timer (due_us)
  WHERE state < 2;
)sql";

constexpr char kNowUs[] =
    "(extract(epoch FROM clock_timestamp()) * 1000000)::bigint";

// The claim: due rows (or rows whose claimer's lock expired), oldest first,
// skipping rows another poller holds, marked RUNNING in the same statement.
const std::string& ClaimSql() {
  static const std::string* sql = new std::string(absl::StrCat(
      "WITH n AS (SELECT ", kNowUs,
      " AS now), due AS (SELECT task_id FROM poll_timer, n "
      "WHERE state < 2 AND due_us <= n.now "
      "AND (state = 0 OR locked_until_us <= n.now) "
      "ORDER BY due_us LIMIT $2 FOR UPDATE OF poll_timer SKIP LOCKED) "
      "UPDATE poll_timer t SET state = 1, owner = $1, "
      "locked_until_us = n.now + $3, attempt = t.attempt + 1 "
      "FROM due, n WHERE t.task_id = due.task_id "
      "RETURNING t.task_id, t.due_us, encode(t.payload, 'hex'), t.attempt"));
  return *sql;
}

const std::string& DoneSql() {
  static const std::string* sql = new std::string(absl::StrCat(
      "UPDATE poll_timer SET state = 2, finished_us = ", kNowUs,
      " WHERE task_id = ANY($1::text[]) AND owner = $2 AND state = 1"));
  return *sql;
}

// A text-format array literal of `values` ("{"a","b"}").
std::string TextArray(const std::vector<std::string>& values) {
  std::string out = "{";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ',';
    out += '"';
    for (char c : values[i]) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  out += '}';
  return out;
}

// Runs `sql` with text parameters; returns the result (caller clears) or
// an error.
absl::StatusOr<PGresult*> Exec(PGconn* conn, const std::string& sql,
                               const std::vector<std::string>& params) {
  std::vector<const char*> values;
  for (const std::string& p : params) values.push_back(p.c_str());
  PGresult* r = PQexecParams(conn, sql.c_str(), static_cast<int>(values.size()),
                             nullptr, values.data(), nullptr, nullptr, 0);
  ExecStatusType s = PQresultStatus(r);
  if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK) {
    std::string message = PQresultErrorMessage(r);
    PQclear(r);
    return absl::UnavailableError(message);
  }
  return r;
}

}  // namespace

absl::Status PollingScheduler::CreateSchema(const std::string& conninfo) {
  PGconn* conn = PQconnectdb(conninfo.c_str());
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string message = PQerrorMessage(conn);
    PQfinish(conn);
    return absl::UnavailableError(message);
  }
  PGresult* r = PQexec(conn, kSchemaSql);
  bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
  std::string message = PQresultErrorMessage(r);
  PQclear(r);
  PQfinish(conn);
  return ok ? absl::OkStatus() : absl::UnavailableError(message);
}

PollingScheduler::PollingScheduler(PollingOptions options)
    : options_(std::move(options)) {}

absl::StatusOr<std::unique_ptr<PollingScheduler>> PollingScheduler::Create(
    PollingOptions options) {
  if (!options.handler || options.node_id.empty() || options.batch < 1) {
    return absl::InvalidArgumentError("handler, node_id and batch required");
  }
  std::unique_ptr<PollingScheduler> s(new PollingScheduler(std::move(options)));
  for (PGconn** conn : {&s->client_, &s->poll_conn_}) {
    *conn = PQconnectdb(s->options_.conninfo.c_str());
    if (PQstatus(*conn) != CONNECTION_OK) {
      return absl::UnavailableError(PQerrorMessage(*conn));
    }
  }
  s->thread_ = std::thread([p = s.get()] { p->Loop(); });
  return s;
}

PollingScheduler::~PollingScheduler() {
  Stop();
  PQfinish(client_);
  PQfinish(poll_conn_);
}

void PollingScheduler::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

absl::Status PollingScheduler::Schedule(const std::string& id, absl::Time due,
                                        const std::string& payload) {
  std::lock_guard<std::mutex> lock(client_mu_);
  statements_.fetch_add(1, std::memory_order_relaxed);
  absl::StatusOr<PGresult*> r =
      Exec(client_,
           "INSERT INTO poll_timer (task_id, due_us, payload) "
           "VALUES ($1, $2, decode($3, 'hex'))",
           {id, absl::StrCat(absl::ToUnixMicros(due)),
            absl::BytesToHexString(payload)});
  if (!r.ok()) return r.status();
  PQclear(*r);
  return absl::OkStatus();
}

absl::Status PollingScheduler::ScheduleBatch(
    const std::vector<Request>& requests) {
  std::vector<std::string> ids, dues, payloads;
  for (const Request& q : requests) {
    ids.push_back(q.id);
    dues.push_back(absl::StrCat(absl::ToUnixMicros(q.due)));
    payloads.push_back(absl::BytesToHexString(q.payload));
  }
  std::lock_guard<std::mutex> lock(client_mu_);
  statements_.fetch_add(1, std::memory_order_relaxed);
  absl::StatusOr<PGresult*> r =
      Exec(client_,
           "INSERT INTO poll_timer (task_id, due_us, payload) "
           "SELECT i, d, decode(p, 'hex') "
           "FROM unnest($1::text[], $2::int8[], $3::text[]) AS u(i, d, p)",
           {TextArray(ids), TextArray(dues), TextArray(payloads)});
  if (!r.ok()) return r.status();
  PQclear(*r);
  return absl::OkStatus();
}

PollingMetrics PollingScheduler::Metrics() const {
  PollingMetrics m;
  m.statements = statements_.load();
  m.polls = polls_.load();
  m.fired = fired_.load();
  return m;
}

int PollingScheduler::PollOnce() {
  polls_.fetch_add(1, std::memory_order_relaxed);
  statements_.fetch_add(1, std::memory_order_relaxed);
  absl::StatusOr<PGresult*> r =
      Exec(poll_conn_, ClaimSql(),
           {options_.node_id, absl::StrCat(options_.batch),
            absl::StrCat(absl::ToInt64Microseconds(options_.lock_ttl))});
  if (!r.ok()) return -1;
  const int rows = PQntuples(*r);
  std::vector<std::string> done;
  done.reserve(rows);
  for (int i = 0; i < rows; ++i) {
    PolledTask task;
    task.id = PQgetvalue(*r, i, 0);
    int64_t due_us = 0;
    (void)absl::SimpleAtoi(PQgetvalue(*r, i, 1), &due_us);
    task.due = absl::FromUnixMicros(due_us);
    task.payload = absl::HexStringToBytes(PQgetvalue(*r, i, 2));
    task.attempt = std::atoi(PQgetvalue(*r, i, 3));
    options_.handler(task);
    done.push_back(std::move(task.id));
  }
  PQclear(*r);
  if (rows > 0) {
    statements_.fetch_add(1, std::memory_order_relaxed);
    absl::StatusOr<PGresult*> d =
        Exec(poll_conn_, DoneSql(), {TextArray(done), options_.node_id});
    if (!d.ok()) return -1;
    PQclear(*d);
    fired_.fetch_add(rows, std::memory_order_relaxed);
  }
  return rows;
}

void PollingScheduler::Loop() {
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) return;
    }
    const absl::Time next = absl::Now() + options_.interval;
    const int rows = PollOnce();
    if (rows >= options_.batch) continue;  // More may be due: poll again.
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock,
                 std::chrono::microseconds(std::max<int64_t>(
                     0, absl::ToInt64Microseconds(next - absl::Now()))),
                 [this] { return stopping_; });
  }
}

}  // namespace bench
}  // namespace timingwheel
