// Copyright 2026 The timingwheel Authors.
//
// A timer driven by the program's own epoll loop, without a reaper thread
// (see timer/event_loop.h). The loop sleeps in epoll_wait() with the timeout
// EpollTimeoutMs(timer->NextDueIn()) gives, then advances the timer once,
// without blocking. Callbacks run inline on the loop thread. An eventfd in
// the epoll set, written by the timer's on_next_due_earlier hook, wakes the
// loop when another thread schedules a timer earlier than the one it sleeps
// for.
//
// It schedules two embedded timers (10 ms, 30 ms) and a 10 s guard, then,
// from another thread while the loop sleeps for the guard, a 20 ms timer
// that ends the loop. It checks that nothing ran early, that the eventfd
// woke the loop, and that the guard did not have to fire; prints what
// happened and "epoll_loop: OK" (exit 0) or "epoll_loop: FAILED" (exit 1).
// tests/examples/epoll_loop_test.sh runs it.

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <thread>
#include <utility>

#include "absl/time/time.h"
#include "timer/embedded_timer.h"
#include "timer/event_loop.h"
#include "timer/executor.h"
#include "timer/timer.h"

namespace {

// Runs each callback at once, on the thread that advances the timer: the
// loop thread. (The timer calls its executor with no lock held.)
class InlineExecutor final : public timingwheel::Executor {
 public:
  void Execute(Callback callback) override { std::move(callback)(); }
};

// Records when a timer was due and when it ran, on the timer's clock.
struct Firing {
  const char* name;
  int64_t due_nanos = 0;
  int64_t ran_nanos = -1;
};

}  // namespace

int main() {
  const int epfd = epoll_create1(EPOLL_CLOEXEC);
  const int wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (epfd < 0 || wake_fd < 0) {
    std::perror("epoll_loop: epoll_create1/eventfd");
    return 1;
  }
  epoll_event wake_event{};
  wake_event.events = EPOLLIN;
  wake_event.data.fd = wake_fd;
  if (epoll_ctl(epfd, EPOLL_CTL_ADD, wake_fd, &wake_event) != 0) {
    std::perror("epoll_loop: epoll_ctl");
    return 1;
  }

  InlineExecutor executor;
  timingwheel::TimerOptions options;
  options.start_reaper = false;  // This loop is the reaper.
  options.executor = &executor;
  // Another thread's add moved the next due instant earlier: wake the loop
  // so that it recomputes its timeout. Called with no lock of the timer.
  options.on_next_due_earlier = [wake_fd] {
    const uint64_t one = 1;
    if (write(wake_fd, &one, sizeof(one)) < 0) std::perror("write eventfd");
  };
  std::unique_ptr<timingwheel::Timer> timer =
      timingwheel::Timer::Create(options).value();
  timingwheel::Clock& clock = timer->clock();

  bool done = false;
  Firing first{"10 ms embedded"};
  Firing second{"30 ms embedded"};
  Firing cross{"20 ms from another thread"};
  Firing guard{"10 s guard"};
  auto record = [&clock](Firing& firing) {
    firing.ran_nanos = clock.NowNanos();
  };
  timingwheel::CallbackTimer first_timer([&] { record(first); });
  timingwheel::CallbackTimer second_timer([&] { record(second); });
  timingwheel::CallbackTimer guard_timer([&] {
    record(guard);
    done = true;
  });
  auto schedule = [&](timingwheel::EmbeddedTimer& embedded, Firing& firing,
                      absl::Duration delay) {
    firing.due_nanos = clock.NowNanos() + absl::ToInt64Nanoseconds(delay);
    return embedded.Schedule(*timer, delay).ok();
  };
  if (!schedule(guard_timer, guard, absl::Seconds(10)) ||
      !schedule(second_timer, second, absl::Milliseconds(30)) ||
      !schedule(first_timer, first, absl::Milliseconds(10))) {
    std::fprintf(stderr, "epoll_loop: schedule failed\n");
    return 1;
  }

  // Once the loop sleeps for the guard, another thread schedules a timer
  // due long before it.
  std::thread other([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(60));
    cross.due_nanos = clock.NowNanos() + 20'000'000;
    timer
        ->Schedule(absl::Milliseconds(20),
                   [&] {
                     record(cross);
                     done = true;
                   })
        .value();
  });

  int turns = 0;
  int eventfd_wakeups = 0;
  int longest_timeout_ms = 0;
  const int64_t start = clock.NowNanos();
  while (!done) {
    const int timeout_ms = timingwheel::EpollTimeoutMs(timer->NextDueIn());
    if (timeout_ms > longest_timeout_ms) longest_timeout_ms = timeout_ms;
    epoll_event events[8];
    const int ready = epoll_wait(epfd, events, 8, timeout_ms);
    for (int i = 0; i < ready; ++i) {
      if (events[i].data.fd == wake_fd) {
        uint64_t count;
        if (read(wake_fd, &count, sizeof(count)) == sizeof(count)) {
          ++eventfd_wakeups;
        }
      }
    }
    timer->AdvanceClock(absl::ZeroDuration());  // Never blocks.
    ++turns;
  }
  other.join();
  const double elapsed_ms = (clock.NowNanos() - start) / 1e6;

  bool ok = true;
  int early = 0;
  for (const Firing* firing : {&first, &second, &cross}) {
    if (firing->ran_nanos < 0) {
      std::printf("%s: did not run\n", firing->name);
      ok = false;
      continue;
    }
    const double late_ms = (firing->ran_nanos - firing->due_nanos) / 1e6;
    if (late_ms < 0) ++early;
    std::printf("%s: ran %.3f ms after its due time\n", firing->name, late_ms);
  }
  std::printf("early runs: %d\n", early);
  std::printf("eventfd wake-ups: %d\n", eventfd_wakeups);
  std::printf("guard fired: %s\n", guard.ran_nanos >= 0 ? "yes" : "no");
  std::printf("longest epoll_wait timeout: %d ms; %d turns in %.1f ms\n",
              longest_timeout_ms, turns, elapsed_ms);
  ok = ok && early == 0 && eventfd_wakeups >= 1 && guard.ran_nanos < 0 &&
       first.ran_nanos <= second.ran_nanos;
  close(wake_fd);
  close(epfd);
  std::printf("epoll_loop: %s\n", ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}
