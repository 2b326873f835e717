// Copyright 2026 The timingwheel Authors.
//
// A consumer of @timingwheel//durable, written from the README: a scheduler
// on the PostgreSQL named by TIMINGWHEEL_PG (.ci/with-postgres starts one),
// a reminder debounced with ScheduleOrReplace(kKeepLater) by three events
// (one run, with the last event's payload), and a task moved by
// RescheduleAfter(), a task of a named kind run by that kind's handler,
// and a recurring schedule whose occurrences run every 200 ms. Exits 0
// when everything happened as expected.

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "durable/durable_scheduler.h"

namespace {

int Fail(const char* what) {
  std::fprintf(stderr, "durable_app: FAIL: %s\n", what);
  return 1;
}

}  // namespace

int main() {
  const char* conninfo = std::getenv("TIMINGWHEEL_PG");
  if (conninfo == nullptr) {
    return Fail(
        "TIMINGWHEEL_PG is not set: run it under bash .ci/with-postgres");
  }
  std::mutex mu;
  std::string last_payload;
  std::atomic<int> reminders{0};
  std::atomic<int> moved{0};
  std::atomic<int> invoices{0};
  std::atomic<int> ticks{0};

  timingwheel::DurableOptions options;
  options.conninfo = conninfo;
  options.node_id = "consumer-app";
  options.handler = [&](const timingwheel::DurableTask& task) -> absl::Status {
    if (task.id == "remind-cart-7") {
      std::lock_guard<std::mutex> lock(mu);
      last_payload = task.payload;
      ++reminders;
    } else if (task.id == "moved") {
      ++moved;
    } else if (task.schedule == "tick") {
      ++ticks;
    }
    return absl::OkStatus();
  };
  timingwheel::TaskKind invoice;
  invoice.name = "invoice";
  invoice.max_in_flight = 2;
  invoice.handler = [&](const timingwheel::DurableTask& task) {
    if (task.kind == "invoice") ++invoices;
    return absl::OkStatus();
  };
  options.kinds = {invoice};
  auto scheduler = timingwheel::DurableScheduler::Create(options);
  if (!scheduler.ok()) return Fail(scheduler.status().ToString().c_str());

  // Three cart events 100 ms apart: one reminder, 500 ms after the last.
  for (int event = 1; event <= 3; ++event) {
    timingwheel::ScheduleRequest request;
    request.id = "remind-cart-7";
    request.delay = absl::Milliseconds(500);
    request.payload = "event-" + std::to_string(event);
    auto outcome =
        (*scheduler)
            ->ScheduleOrReplace(request, timingwheel::ReplaceMode::kKeepLater);
    if (!outcome.ok()) return Fail(outcome.status().ToString().c_str());
    const timingwheel::ScheduleOutcome expected =
        event == 1 ? timingwheel::ScheduleOutcome::kScheduled
                   : timingwheel::ScheduleOutcome::kReplaced;
    if (*outcome != expected) return Fail("unexpected ScheduleOutcome");
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  // A task moved from an hour away to now.
  if (!(*scheduler)->Schedule("moved", absl::Hours(1), "p").ok()) {
    return Fail("Schedule");
  }
  auto rescheduled =
      (*scheduler)->RescheduleAfter("moved", absl::ZeroDuration());
  if (!rescheduled.ok() ||
      *rescheduled != timingwheel::ScheduleOutcome::kReplaced) {
    return Fail("RescheduleAfter");
  }

  // A task of the "invoice" kind, and a schedule every 200 ms.
  timingwheel::ScheduleRequest bill;
  bill.id = "invoice-42";
  bill.payload = "amount=12.50";
  bill.kind = "invoice";
  if (!(*scheduler)->ScheduleBatch({bill}).ok()) return Fail("invoice");
  timingwheel::RecurringSchedule tick;
  tick.name = "tick";
  tick.every = absl::Milliseconds(200);
  tick.payload = "tick";
  if (!(*scheduler)->CreateSchedule(tick).ok()) return Fail("CreateSchedule");

  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while ((reminders.load() < 1 || moved.load() < 1 || invoices.load() < 1 ||
          ticks.load() < 2) &&
         absl::Now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // Give a second, wrong run a chance to show up.
  std::this_thread::sleep_for(std::chrono::seconds(1));
  auto deleted = (*scheduler)->DeleteSchedule("tick");
  (*scheduler)->Shutdown();
  if (!deleted.ok() || !*deleted) return Fail("DeleteSchedule");
  std::lock_guard<std::mutex> lock(mu);
  if (reminders.load() != 1) return Fail("the debounced reminder ran not once");
  if (last_payload != "event-3")
    return Fail("the reminder ran with an old payload");
  if (moved.load() != 1) return Fail("the moved task ran not once");
  if (invoices.load() != 1) return Fail("the invoice ran not once");
  if (ticks.load() < 2) return Fail("the schedule ran less than twice");
  std::printf(
      "durable_app: debounced reminder ran once (%s); moved task ran; "
      "invoice ran by its kind; schedule ran %d times\n",
      last_payload.c_str(), ticks.load());
  return 0;
}
