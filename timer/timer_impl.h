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
// The files, one job each:
//   timer.cc            the facade: Create(), the constructor and destructor,
//                       Add(), Cancel(), Metrics(), the handle's methods.
//   timer_clock.cc      clock readings to the timer's relative nanoseconds.
//   timer_flush.cc      the flush of due tasks and their hand-over in batches.
//   timer_run.cc        running (or releasing) a handed-over batch.
//   timer_reaper.cc     the reaper loop, sleeping and waking, inline runs and
//                       the watchdog.
//   timer_shutdown.cc   Shutdown().
//   timer_inbox.cc, timer_scheduling.cc, timer_bulk.cc, timer_status.cc,
//   embedded_timer.cc   (see each file's header comment).

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
