// Copyright 2026 The timingwheel Authors.
//
// A consumer of timingwheel::durable built with CMake: a DurableClient (a
// producer that runs no handlers) schedules two tasks and cancels one; a
// DurableScheduler on the same database runs the other once. The database
// is the one TIMINGWHEEL_PG names (.ci/with-postgres starts a throwaway
// server). Exits 0 when exactly the scheduled task ran.

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>

#include "absl/status/status.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "durable/durable_client.h"
#include "durable/durable_scheduler.h"

namespace {

int Fail(const char* what) {
  std::fprintf(stderr, "durable_client_app: FAIL: %s\n", what);
  return 1;
}

}  // namespace

int main() {
  const char* conninfo = std::getenv("TIMINGWHEEL_PG");
  if (conninfo == nullptr) {
    return Fail(
        "TIMINGWHEEL_PG is not set: run it under bash .ci/with-postgres");
  }
  timingwheel::DurableClientOptions client_options;
  client_options.conninfo = conninfo;
  auto client = timingwheel::DurableClient::Create(client_options);
  if (!client.ok()) return Fail(client.status().ToString().c_str());
  if (!(*client)
           ->Schedule("cmake-order-1", absl::Milliseconds(200), "ship")
           .ok()) {
    return Fail("Schedule cmake-order-1");
  }
  if (!(*client)
           ->Schedule("cmake-order-2", absl::Milliseconds(200), "drop")
           .ok()) {
    return Fail("Schedule cmake-order-2");
  }
  auto cancelled = (*client)->Cancel("cmake-order-2");
  if (!cancelled.ok() || !*cancelled) return Fail("Cancel cmake-order-2");

  std::atomic<int> shipped{0};
  std::atomic<int> dropped{0};
  timingwheel::DurableOptions options;
  options.conninfo = conninfo;
  options.node_id = "cmake-consumer";
  options.handler = [&](const timingwheel::DurableTask& task) -> absl::Status {
    if (task.id == "cmake-order-1" && task.payload == "ship") ++shipped;
    if (task.id == "cmake-order-2") ++dropped;
    return absl::OkStatus();
  };
  auto scheduler = timingwheel::DurableScheduler::Create(options);
  if (!scheduler.ok()) return Fail(scheduler.status().ToString().c_str());
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (shipped.load() < 1 && absl::Now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // Give a second, wrong run (or the cancelled task) a chance to show up.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  (*scheduler)->Shutdown();
  if (shipped.load() != 1) return Fail("the scheduled task ran not once");
  if (dropped.load() != 0) return Fail("the cancelled task ran");
  std::printf("durable_client_app: client scheduled, scheduler ran it once\n");
  return 0;
}
