// Copyright 2026 The timingwheel Authors.
//
// timer_impl.h
// -----------------------------------------------------------------------------
//
// What the files that implement `Timer` share and users never see: the flush
// chunk size, the two thread-local marks (which timer's callback, and which
// timer's inline flush, the current thread is in), and `Timer::Batch`, the
// executor callback for one batch of expired tasks. Private to //timer:timer
// (listed in its srcs).
//
// The files, one job each, and the part of Timer each implements (a nested
// class declared in its own header, which says what it promises and which
// threads call it):
//   timer.cc            the facade: Create(), the constructor and destructor,
//                       Add(), Metrics(); Timer::Placement (timer_add.h).
//   timer_cancel.cc     Cancel(), the handle's cancel; Timer::Cancels.
//   timer_clock.cc      clock readings to the timer's relative nanoseconds:
//                       Timer::Clocks (timer_clock.h).
//   timer_flush.cc      the flush of due tasks and their hand-over in
//                       batches: Timer::Flusher (timer_flush.h).
//   timer_run.cc        running (or releasing) a handed-over batch:
//                       Timer::Runner (timer_run.h).
//   timer_reaper.cc     AdvanceClock(); the reaper loop, sleeping and waking,
//                       inline runs and the watchdog: Timer::Reaper.
//   timer_inbox.cc      the producer inboxes: Timer::Inboxes.
//   timer_scheduling.cc AddAt(), AddBatch(), periodic tasks: Timer::Periodic.
//   timer_status.cc     a handle's status and deadline: Timer::TaskStatuses.
//   embedded_timer.cc   EmbeddedTimer: Timer::EmbeddedSlots.
//   timer_shutdown.cc, timer_bulk.cc: Shutdown(); CancelAll(), PeekNext().
//
// The timer's state that is not the wheel's is in plain classes under
// internal/: TimerSettings (what the options fixed), WakeState (flusher and
// sleepers), InlineRuns and Watchdog (the reaper's own runs),
// InFlightCallbacks (what Shutdown() waits for).

#ifndef TIMINGWHEEL_TIMER_TIMER_IMPL_H_
#define TIMINGWHEEL_TIMER_TIMER_IMPL_H_

#include <cstddef>
#include <utility>
#include <vector>

#include "timer/timer.h"
#include "timer/timer_add.h"       // IWYU pragma: export
#include "timer/timer_cancel.h"    // IWYU pragma: export
#include "timer/timer_clock.h"     // IWYU pragma: export
#include "timer/timer_embedded.h"  // IWYU pragma: export
#include "timer/timer_flush.h"     // IWYU pragma: export
#include "timer/timer_inbox.h"     // IWYU pragma: export
#include "timer/timer_periodic.h"  // IWYU pragma: export
#include "timer/timer_reaper.h"    // IWYU pragma: export
#include "timer/timer_run.h"       // IWYU pragma: export
#include "timer/timer_status.h"    // IWYU pragma: export
#include "timer/timer_task.h"

namespace timingwheel {
namespace internal {

// Tasks a flush handles per lock hold; the lock is released in between so
// that adds and cancels never wait behind a large bucket.
constexpr size_t kFlushChunk = 512;

// The timer whose callback the current thread is running, if any (defined in
// timer.cc; set by Timer::CallbackScope).
extern thread_local const Timer* current_callback_timer;

// The timer whose reaper is flushing on the current thread, when it keeps
// the batches to run them itself (see Timer::Dispatch). Defined in timer.cc.
extern thread_local const Timer* inline_flusher;

}  // namespace internal

// Timer::Batch is the executor callback for one batch of expired tasks. Run,
// it runs them; destroyed without running (an executor that drops work), it
// releases them: each task still queued is cancelled.
class Timer::Batch {
 public:
  Batch(Timer* timer, std::vector<TimerTask*> tasks)
      : timer_(timer), tasks_(std::move(tasks)) {}
  Batch(Batch&& other) noexcept
      : timer_(std::exchange(other.timer_, nullptr)),
        tasks_(std::move(other.tasks_)) {}
  Batch& operator=(Batch&&) = delete;
  ~Batch() {
    if (timer_ != nullptr) Runner::ReleaseBatch(*timer_, tasks_);
  }

  void operator()() && {
    Runner::RunBatch(*std::exchange(timer_, nullptr), tasks_);
  }

 private:
  Timer* timer_;  // Null once run or moved from.
  std::vector<TimerTask*> tasks_;
};

}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_TIMER_IMPL_H_
