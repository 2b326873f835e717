// Copyright 2026 The timingwheel Authors.

#include "durable/sql/pooler_probe.h"

#include <poll.h>

#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "libpq-fe.h"

namespace timingwheel {
namespace durable_internal {
namespace {

constexpr char kChannel[] = "timingwheel_probe";

struct ConnCloser {
  void operator()(PGconn* conn) const { PQfinish(conn); }
};
using Conn = std::unique_ptr<PGconn, ConnCloser>;

bool Run(PGconn* conn, const std::string& sql) {
  PGresult* r = PQexec(conn, sql.c_str());
  const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
  PQclear(r);
  return ok;
}

// Whether a notification on kChannel reaches `conn` within `wait`.
bool Arrives(PGconn* conn, absl::Duration wait) {
  const absl::Time deadline = absl::Now() + wait;
  while (true) {
    if (PQconsumeInput(conn) == 0) return false;
    bool arrived = false;
    while (PGnotify* note = PQnotifies(conn)) {
      if (absl::string_view(note->relname) == kChannel) arrived = true;
      PQfreemem(note);
    }
    const absl::Duration left = deadline - absl::Now();
    if (arrived) return true;
    if (left <= absl::ZeroDuration()) return false;
    pollfd fd = {PQsocket(conn), POLLIN, 0};
    (void)poll(&fd, 1, static_cast<int>(absl::ToInt64Milliseconds(left)) + 1);
  }
}

}  // namespace

absl::Status CheckNotPooled(const std::string& conninfo, absl::string_view who,
                            absl::Duration wait) {
  Conn listener(PQconnectdb(conninfo.c_str()));
  if (listener == nullptr || PQstatus(listener.get()) != CONNECTION_OK) {
    return absl::OkStatus();
  }
  if (!Run(listener.get(), absl::StrCat("LISTEN ", kChannel))) {
    return absl::OkStatus();
  }
  Conn sender(PQconnectdb(conninfo.c_str()));
  if (sender == nullptr || PQstatus(sender.get()) != CONNECTION_OK ||
      !Run(sender.get(), absl::StrCat("NOTIFY ", kChannel))) {
    return absl::OkStatus();
  }
  sender.reset();
  const bool arrived = Arrives(listener.get(), wait);
  (void)Run(listener.get(), absl::StrCat("UNLISTEN ", kChannel));
  if (arrived) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "notifications sent through this connection string do not arrive: is "
      "it a connection pooler in transaction mode (PgBouncer's pool_mode = "
      "transaction)? ",
      who,
      " needs a direct or session-pooled connection (LISTEN, session "
      "advisory locks, session settings), and sets nothing on a pooled "
      "one; only producers may use a transaction pooler (docs/durable.md, "
      "\"Behind PgBouncer\")"));
}

}  // namespace durable_internal
}  // namespace timingwheel
