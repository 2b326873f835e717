// Copyright 2026 The timingwheel Authors.
//
// inbox.h
// -----------------------------------------------------------------------------
//
// `Inbox` is the lock-free front of a `Timer`'s wheel for producer threads:
// 16 cache-line-aligned stripes, each an intrusive LIFO stack of task links
// that a producer pushes onto without the timer's lock, plus the one word
// producers read to decide whether they may push at all (the "floor").
// The timer drains the stripes into the wheel under its lock, in batches:
// the producer itself when its stripe holds `kDrainThreshold` tasks, the
// reaper at every wake-up and before it sleeps, and every operation that
// needs the wheel's view first (see timer.h, "Producer inboxes").
//
// The protocol that keeps a buffered task from being late (never lost, never
// slept over) is a Dekker pair on two seq_cst words:
//
//   producer: push (seq_cst RMW on its stripe); load floor (seq_cst);
//             due < floor -> take the lock and drain (which wakes sleepers).
//   sleeper:  store floor = its deadline (seq_cst, under the lock);
//             load every stripe (seq_cst); anything there -> drain, and
//             compute the deadline again.
//
// One of them sees the other. `Timer::Shutdown()` is a sleeper that never
// wakes: it closes the floor, then drains; a producer that sees the closed
// floor after its push takes the lock and withdraws its task if the drain
// missed it (see Timer::TryBuffer()).
//
// This class knows nothing of tasks or timers: it links `ListNode`s through
// their `next` field (their `prev` stays null). Thread-safe.

#ifndef TIMINGWHEEL_TIMER_INTERNAL_INBOX_H_
#define TIMINGWHEEL_TIMER_INTERNAL_INBOX_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "timer/timer_task.h"

namespace timingwheel {
namespace internal {

// Inbox
//
// Striped lock-free stacks of intrusive nodes plus the published floor and
// wheel-time hint. Thread-safe.
class Inbox {
 public:
  static constexpr size_t kStripes = 16;
  // A producer drains its stripe once it holds this many tasks: a buffered
  // task waits for at most this many schedules on its stripe, or for the
  // next wake-up of the reaper.
  static constexpr int32_t kDrainThreshold = 64;

  struct alignas(64) Stripe {
    std::atomic<ListNode*> head{nullptr};
    // Pushes since the last take: an estimate (updated without an atomic
    // RMW; a take resets it).
    std::atomic<int32_t> depth{0};
  };

  Inbox() = default;
  Inbox(const Inbox&) = delete;
  Inbox& operator=(const Inbox&) = delete;

  // Inbox::Mine()
  //
  // The calling thread's stripe (assigned round-robin on first use, the
  // same for every inbox). Inline: a producer's add reads it every time.
  Stripe& Mine() {
    const uint32_t stripe = this_thread_stripe;
    return stripes_[stripe != 0 ? stripe - 1 : AssignThisThreadStripe()];
  }

  // Inbox::Push()
  //
  // Pushes `node` onto `stripe` (seq_cst) and returns the stripe's depth
  // after the push.
  int32_t Push(Stripe& stripe, ListNode* node) {
    if (void (*hook)() =
            hooks_for_testing.before_push.load(std::memory_order_relaxed)) {
      hook();
    }
    ListNode* head = stripe.head.load(std::memory_order_relaxed);
    do {
      node->next = head;
    } while (!stripe.head.compare_exchange_weak(
        head, node, std::memory_order_seq_cst, std::memory_order_relaxed));
    const int32_t depth = stripe.depth.load(std::memory_order_relaxed) + 1;
    stripe.depth.store(depth, std::memory_order_relaxed);
    return depth;
  }

  // Inbox::TakeStripe()
  //
  // Empties `stripe` and returns its nodes oldest first, chained by `next`
  // (null-terminated), or null when it was empty.
  static ListNode* TakeStripe(Stripe& stripe);

  // Inbox::TakeAll()
  //
  // Empties every stripe; returns one chain, each stripe's nodes oldest
  // first, stripe after stripe.
  ListNode* TakeAll();

  // Inbox::AnyPushed()
  //
  // Whether some stripe holds a node (seq_cst loads).
  bool AnyPushed() const;

  // Inbox::floor() / set_floor()
  //
  // A producer may push a task due at `due` only if `due >= floor()`:
  // every thread that sleeps on the wheel (or the reaper's standby
  // watchdog) wakes by then and drains first. kMaxNanos closes the inbox
  // (nothing is due at or after it that may be buffered). Both seq_cst.
  int64_t floor() const { return floor_.load(); }
  // The same, relaxed: a producer's first look (a hint; the seq_cst look
  // after its push decides).
  int64_t floor_hint() const { return floor_.load(std::memory_order_relaxed); }
  void set_floor(int64_t floor) { floor_.store(floor); }

  // Inbox::time_hint() / set_time_hint()
  //
  // The wheel's time as last published by a flusher: a producer's due time
  // counts from no earlier than this (as a locked add counts from no
  // earlier than the wheel's time), so that a clock that stepped back
  // cannot make a buffered task due before what the timer has seen.
  int64_t time_hint() const {
    return time_hint_.load(std::memory_order_relaxed);
  }
  void set_time_hint(int64_t nanos) {
    time_hint_.store(nanos, std::memory_order_relaxed);
  }

  // Inbox::Hooks
  //
  // Test-only: functions called (when set) by every inbox at the start of
  // Push() and at the end of TakeAll(), so that a test can interleave a
  // producer and a sleeper at the points the protocol above is about. Null
  // (one predictable branch) otherwise.
  struct Hooks {
    std::atomic<void (*)()> before_push{nullptr};
    std::atomic<void (*)()> after_take_all{nullptr};
  };
  static Hooks hooks_for_testing;

 private:
  // The calling thread's stripe plus one (0: none assigned yet), constant-
  // initialized so that reading it needs no guard.
  static inline thread_local uint32_t this_thread_stripe = 0;
  // Assigns the calling thread its stripe (round-robin) and returns it.
  static uint32_t AssignThisThreadStripe();

  Stripe stripes_[kStripes];
  alignas(64) std::atomic<int64_t> floor_{-1};
  std::atomic<int64_t> time_hint_{0};
};

}  // namespace internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_INTERNAL_INBOX_H_
