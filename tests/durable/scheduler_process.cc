// Copyright 2026 The timingwheel Authors.
//
// A scheduler in a process of its own, for the tests that stall (SIGSTOP)
// or kill a scheduler: `scheduler_process CONNINFO NODE_ID TTL_MS`. Its
// handler records each attempt as a row of test_runs(task_id, node,
// attempt), which the test creates. Prints "ready" once created; shuts
// down on SIGTERM.

#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include "absl/strings/str_cat.h"
#include "durable/durable_scheduler.h"
#include "libpq-fe.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s CONNINFO NODE_ID TTL_MS\n", argv[0]);
    return 2;
  }
  // Block SIGTERM in every thread; main waits for it.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  const std::string node = argv[2];
  PGconn* runs = PQconnectdb(argv[1]);
  if (PQstatus(runs) != CONNECTION_OK) {
    std::fprintf(stderr, "connect: %s", PQerrorMessage(runs));
    return 1;
  }
  std::mutex runs_mu;
  timingwheel::DurableOptions options;
  options.conninfo = argv[1];
  options.node_id = node;
  options.slot_count = 64;
  options.lease_ttl = absl::Milliseconds(std::atoi(argv[3]));
  options.handler = [&](const timingwheel::DurableTask& task) {
    std::lock_guard<std::mutex> lock(runs_mu);
    std::string attempt = absl::StrCat(task.attempt);
    const char* values[] = {task.id.data(), node.c_str(), attempt.c_str()};
    const int lengths[] = {static_cast<int>(task.id.size()), 0, 0};
    const int formats[] = {1, 0, 0};
    PGresult* r = PQexecParams(runs,
                               "INSERT INTO test_runs (task_id, node, attempt) "
                               "VALUES ($1::bytea, $2, $3::int)",
                               3, nullptr, values, lengths, formats, 0);
    bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    PQclear(r);
    return ok ? absl::OkStatus() : absl::InternalError("test_runs insert");
  };
  auto scheduler = timingwheel::DurableScheduler::Create(options);
  if (!scheduler.ok()) {
    std::fprintf(stderr, "create: %s\n", scheduler.status().ToString().c_str());
    return 1;
  }
  std::printf("ready\n");
  std::fflush(stdout);
  int signal = 0;
  sigwait(&signals, &signal);
  (*scheduler)->Shutdown();
  PQfinish(runs);
  return 0;
}
