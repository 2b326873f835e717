// Copyright 2026 The timingwheel Authors.
//
// sql_producer_worker: the C++ side of the Python producer test
// (python_producer_test.py). Creates a fresh database ($TIMINGWHEEL_PG),
// runs a scheduler on it with the default handler and the kind "reminder",
// prints "CONNINFO <conninfo>" and "READY", then one line per attempt,
// "RAN <kind or -> <id> <payload>", and ends when its standard input
// closes (the database is dropped then).

#include <cstdio>
#include <iostream>
#include <memory>
#include <mutex>
#include <string>

#include "absl/time/time.h"
#include "durable/durable_scheduler.h"
#include "durable/testing/postgres_fixture.h"

namespace {

std::mutex output_mu;

timingwheel::DurableHandler Printer(const std::string& kind) {
  return [kind](const timingwheel::DurableTask& task) {
    std::lock_guard<std::mutex> lock(output_mu);
    std::cout << "RAN " << kind << " " << task.id << " " << task.payload
              << std::endl;
    return absl::OkStatus();
  };
}

}  // namespace

int main() {
  auto db = timingwheel::durable_testing::TestDatabase::Create();
  if (!db.ok()) {
    std::cerr << "sql_producer_worker: " << db.status() << "\n";
    return 1;
  }
  timingwheel::DurableOptions options;
  options.conninfo = (*db)->conninfo();
  options.node_id = "python-test-worker";
  options.slot_count = 4;
  options.lease_ttl = absl::Seconds(2);
  options.handler = Printer("-");
  options.kinds.push_back({"reminder", Printer("reminder")});
  auto scheduler = timingwheel::DurableScheduler::Create(std::move(options));
  if (!scheduler.ok()) {
    std::cerr << "sql_producer_worker: " << scheduler.status() << "\n";
    return 1;
  }
  {
    std::lock_guard<std::mutex> lock(output_mu);
    std::cout << "CONNINFO " << (*db)->conninfo() << "\nREADY" << std::endl;
  }
  std::string line;
  while (std::getline(std::cin, line)) {
  }
  (*scheduler)->Shutdown();
  return 0;
}
