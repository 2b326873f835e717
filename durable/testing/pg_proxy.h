// Copyright 2026 The timingwheel Authors.
//
// pg_proxy.h
// -----------------------------------------------------------------------------
//
// Test-only: a PostgreSQL wire-protocol proxy on a Unix socket, inside the
// test process, that loses replies and connections on request, so that a test
// can force "the statement committed but its client never heard" (or "the
// connection died") at an exact statement instead of hoping a kill lands in
// the right window. This file defines:
//
//   * `PgProxy`: listens at `<its own temp dir>/.s.PGSQL.<port>`, connects
//     each client to the real server, parses both directions into protocol
//     messages, and offers three faults: drop the reply to one statement
//     (`DropReplyTo()`), cut every connection (`CutAll()`), refuse new ones
//     (`SetRefuseNew()`).
//
// One background thread runs a poll() loop over every connection. It
// understands the startup phase (the startup packet, SSLRequest and
// GSSENCRequest, both answered 'N': the proxy never speaks TLS), then typed
// messages in both directions, reassembled across partial reads. SQL text is
// read from simple Query ('Q') and Parse ('P') messages; a Bind ('B') of a
// statement parsed earlier on the same connection (named or unnamed) counts
// as that statement's SQL. Everything else (COPY, pipelined queries,
// notifications) passes through unchanged; a drop armed on a pipelined
// statement swallows up to the first ReadyForQuery after it, which may end
// the reply of the pipeline's first Sync only.
//
// Example:
//
//   auto proxy = PgProxy::Start(db->conninfo());
//   PGconn* conn = PQconnectdb((*proxy)->conninfo().c_str());
//   (*proxy)->DropReplyTo("INSERT INTO t");
//   PQexec(conn, "INSERT INTO t VALUES (1)");  // Fails: connection lost.
//   // ... yet the row is in t.

#ifndef TIMINGWHEEL_DURABLE_TESTING_PG_PROXY_H_
#define TIMINGWHEEL_DURABLE_TESTING_PG_PROXY_H_

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace timingwheel {
namespace durable_testing {

// PgProxy
//
// A proxy in front of one PostgreSQL server (Unix socket only). Every public
// method is thread-safe and may be called from any thread but the proxy's
// own; a fault takes effect for every client byte the proxy reads after the
// call returns.
class PgProxy {
 public:
  // PgProxy::Start()
  //
  // Starts a proxy in front of the server named by `upstream_conninfo`
  // (libpq keywords; `host` must be a Unix socket directory, `port` defaults
  // to 5432). The proxy listens in a fresh directory under /tmp (short, so
  // that the socket path fits `sun_path`). Fails when the conninfo does not
  // parse, has no `host` starting with '/', or the socket cannot be made.
  static absl::StatusOr<std::unique_ptr<PgProxy>> Start(
      const std::string& upstream_conninfo);

  // Stops the thread, closes every connection and removes the directory.
  ~PgProxy();

  PgProxy(const PgProxy&) = delete;
  PgProxy& operator=(const PgProxy&) = delete;

  // PgProxy::conninfo()
  //
  // The upstream conninfo with `host` replaced by the proxy's directory
  // (every other keyword kept), for clients that should go through it.
  std::string conninfo() const { return conninfo_; }

  // PgProxy::DropReplyTo()
  //
  // Arms a one-shot fault: the next statement sent on any connection whose
  // SQL text contains `sql_substring` is forwarded to the server; every
  // message the server sends back on that connection, up to and including
  // the next ReadyForQuery, is swallowed; then both sides of the connection
  // are closed. An autocommit statement therefore commits, and its client
  // sees the connection lost. A second call before the drop replaces the
  // substring.
  void DropReplyTo(std::string sql_substring);

  // PgProxy::WaitDropped()
  //
  // Waits up to `timeout` for the armed drop to complete (connection
  // closed). Returns true once it has; false on timeout.
  bool WaitDropped(absl::Duration timeout);

  // PgProxy::CutAll()
  //
  // Closes both sides of every open connection, and returns once they are
  // closed. Connections made afterwards work (unless refused).
  void CutAll();

  // PgProxy::SetRefuseNew()
  //
  // While `refuse` is true, new connections are accepted and closed at once
  // (the client sees the server close the connection during startup).
  void SetRefuseNew(bool refuse);

  // PgProxy::drops()
  //
  // How many armed drops have completed.
  int64_t drops() const;

  // PgProxy::connections_accepted()
  //
  // How many client connections the proxy has accepted, refused ones
  // included.
  int64_t connections_accepted() const;

 private:
  PgProxy() = default;

  // Runs on thread_ until stop_.
  void Run();
  // Wakes the poll() of Run().
  void Wake();
  // Disarms the drop and returns true if one is armed for a substring of
  // `sql`.
  bool TakeDrop(const std::string& sql);

  std::string dir_;
  std::string socket_path_;
  std::string upstream_path_;
  std::string conninfo_;
  int listen_fd_ = -1;
  int wake_read_fd_ = -1;
  int wake_write_fd_ = -1;
  std::thread thread_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  // Guarded by mu_.
  bool stop_ = false;
  bool refuse_new_ = false;
  bool drop_armed_ = false;
  std::string drop_substring_;
  int64_t drops_ = 0;
  int64_t drops_at_arm_ = 0;
  int64_t accepted_ = 0;
  int64_t cuts_requested_ = 0;
  int64_t cuts_done_ = 0;
};

}  // namespace durable_testing
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_TESTING_PG_PROXY_H_
