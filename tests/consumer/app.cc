// Copyright 2026 The timingwheel Authors.
//
// A consumer of @timingwheel//timer and @timingwheel//purgatory: schedules
// and cancels timers, then parks two delayed requests, one of which
// completes when enough acknowledgements arrive while the other times out.
// Exits 0 when everything happened as expected.

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>

#include "absl/time/time.h"
#include "purgatory/delayed_operation_purgatory.h"
#include "timer/embedded_timer.h"
#include "timer/timer.h"

namespace {

// A latch: Wait() returns once CountDown() has been called `count` times.
class Latch {
 public:
  explicit Latch(int count) : count_(count) {}
  void CountDown() {
    std::lock_guard<std::mutex> lock(mu_);
    if (--count_ == 0) cv_.notify_all();
  }
  bool Wait(absl::Duration timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, absl::ToChronoNanoseconds(timeout),
                        [this] { return count_ <= 0; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int count_;
};

// A produce request that completes once `needed` replicas acknowledged.
class DelayedProduce : public timingwheel::DelayedOperation {
 public:
  DelayedProduce(absl::Duration timeout, int needed, std::atomic<int>* acks,
                 Latch* done)
      : DelayedOperation(timeout), needed_(needed), acks_(acks), done_(done) {}

  bool TryComplete() override {
    return acks_->load() >= needed_ && ForceComplete();
  }
  void OnComplete() override {
    outcome = acks_->load() >= needed_ ? "acknowledged" : "timed out";
    done_->CountDown();
  }
  void OnExpiration() override { expired = true; }

  std::string outcome;
  std::atomic<bool> expired{false};

 private:
  const int needed_;
  std::atomic<int>* const acks_;
  Latch* const done_;
};

}  // namespace

int main() {
  // The timer: one callback runs, one is cancelled.
  auto timer = timingwheel::Timer::Create().value();
  Latch fired(1);
  std::atomic<int> runs{0};
  timer
      ->Schedule(absl::Milliseconds(20),
                 [&] {
                   ++runs;
                   fired.CountDown();
                 })
      .value();
  timingwheel::TimerHandle idle_timeout =
      timer->Schedule(absl::Seconds(30), [&] { ++runs; }).value();
  const bool cancelled = idle_timeout.Cancel();
  if (!fired.Wait(absl::Seconds(30)) || !cancelled) {
    std::fprintf(stderr, "timer: callback did not fire or cancel failed\n");
    return 1;
  }
  // Reschedule re-arms the cancelled timeout without a new task; a periodic
  // task runs every 5 ms until cancelled.
  const bool rearmed = idle_timeout.Reschedule(absl::Seconds(30)) ==
                       timingwheel::RescheduleResult::kRearmed;
  const bool cancelled_again = idle_timeout.Cancel();
  Latch beats(3);
  timingwheel::PeriodicHandle beat =
      timer->SchedulePeriodic(absl::Milliseconds(5), [&] { beats.CountDown(); })
          .value();
  const bool beat_ran = beats.Wait(absl::Seconds(30));
  beat.Cancel();  // No beat starts after this returns.
  if (!rearmed || !cancelled_again || !beat_ran) {
    std::fprintf(stderr, "timer: reschedule or periodic task failed\n");
    return 1;
  }

  // An embedded timer (no allocation): an idle timeout that traffic moves
  // (scheduling a pending one moves it), then fires.
  Latch idle_fired(1);
  timingwheel::CallbackTimer idle([&] { idle_fired.CountDown(); });
  const bool idle_ok =
      idle.Schedule(*timer, absl::Seconds(30)).ok() &&
      idle.Schedule(*timer, absl::Milliseconds(20)).ok();  // Moved earlier.
  if (!idle_ok || !idle_fired.Wait(absl::Seconds(30))) {
    std::fprintf(stderr, "timer: embedded timer did not fire\n");
    return 1;
  }

  // The purgatory: one request completes through its key, one times out.
  auto purgatory =
      timingwheel::DelayedOperationPurgatory<std::string>::Create().value();
  std::atomic<int> acks{0};
  Latch done(2);
  auto acknowledged = timingwheel::MakeTask<DelayedProduce>(
      absl::Seconds(30), /*needed=*/2, &acks, &done);
  auto timed_out = timingwheel::MakeTask<DelayedProduce>(
      absl::Milliseconds(50), /*needed=*/5, &acks, &done);
  purgatory->TryCompleteElseWatch(acknowledged, {"topic-0"}).value();
  purgatory->TryCompleteElseWatch(timed_out, {"topic-1"}).value();
  acks = 2;
  const int completed = purgatory->CheckAndComplete("topic-0");
  if (!done.Wait(absl::Seconds(30))) {
    std::fprintf(stderr, "purgatory: requests did not finish\n");
    return 1;
  }
  purgatory->Shutdown();
  timer->Shutdown();

  std::printf(
      "timer: %d run, 1 cancelled, re-armed and cancelled again, "
      "periodic task ran at least 3 times; embedded timer moved and fired\n",
      runs.load());
  std::printf("purgatory: %d completed by key: %s; other: %s (expired=%d)\n",
              completed, acknowledged->outcome.c_str(),
              timed_out->outcome.c_str(), timed_out->expired.load() ? 1 : 0);
  const bool ok = runs.load() == 1 && completed == 1 &&
                  acknowledged->outcome == "acknowledged" &&
                  timed_out->outcome == "timed out" && timed_out->expired;
  std::printf("%s\n", ok ? "consumer: OK" : "consumer: FAILED");
  return ok ? 0 : 1;
}
