// Copyright 2026 The timingwheel Authors.
//
// timing_wheel.h
// -----------------------------------------------------------------------------
//
// `TimingWheel` is the data structure behind `Timer`: hierarchical wheels of
// buckets, a delay queue of buckets, and a short sorted list for the current
// tick. It knows nothing of threads, clocks or executors; `Timer` drives it
// under its lock.
//
// The algorithm
// -------------
// Level 0 has `wheel_size` buckets of `tick` each and covers
// `interval = tick * wheel_size` from its current time. A task due beyond that
// goes to level 1, whose tick is level 0's interval, and so on; a level is
// created on first need, and the level whose interval no longer fits in 64
// bits takes everything (so delays of centuries place without overflow).
// Each level's current time is the start of the tick that contains the
// wheel's time; a task due at `d` goes to slot `(d / tick) % wheel_size` of
// the lowest level that covers it. There are no round counters.
//
// Every bucket carries a key: the earliest due time of the tasks added to it
// since it was last emptied (not the start of its slot, as in Kafka). A
// bucket whose key drops is repositioned in the `DelayQueue`, a min-heap of
// buckets, so the heap never holds more entries than there are buckets.
//
// Advancing to time `now` (see `Timer::AdvanceClock()`): the wheel's levels
// move their current time forward (never back), then every bucket whose key
// is <= now is taken out of the heap and emptied (`FlushChunk()`). Each of its
// tasks that is due (`due <= now`) is handed to the executor; each that is not
// is placed again: into a lower level (a cascade), or, when it is due within
// the current level-0 tick, into the due list. The due list is kept sorted by
// due time and sits in the heap keyed by its head, so a reaper that sleeps
// until the heap's smallest key wakes exactly at a task's deadline:
//
//   * never early: a task runs only once `now >= due`;
//   * precise: lateness is the reaper's scheduling delay, not a tick;
//   * frugal: one wake-up per distinct due instant, however far away it was
//     scheduled, because a bucket is flushed at its earliest task's due time
//     and that task runs from whatever level it sits in; the others cascade
//     in the same wake-up. A task moves down at most once per level, plus
//     once more for each early cascade (below) that puts it back into the
//     level it came from because it did not fit the level below yet.
//
// Large cascades. A bucket above level 0 that has received many tasks (a
// burst of timers with similar delays) would take a while to cascade, and
// flushing it only when its earliest task is due would make that task, and
// everything due while the cascade runs, late. Such a bucket is keyed
// earlier, by about the time its cascade takes (500 ns a task, at most
// half of the level below's interval), so it moves down before its tasks
// come due; those that do not fit the level below yet go back to it. The
// flush also works in chunks (`FlushChunk()`): level-0 buckets and the due
// list are served between chunks of a large cascade, and the timer re-reads
// the clock after each chunk.
//
// Correctness does not depend on which bucket a task sits in, only on each
// bucket's key being a lower bound of its tasks' due times: a flush looks at
// each task's own due time. A key left stale by a cancel costs one early
// wake-up that places the remaining tasks again.
//
// Not thread-safe: every member runs under the owning timer's lock.

#ifndef TIMINGWHEEL_TIMER_INTERNAL_TIMING_WHEEL_H_
#define TIMINGWHEEL_TIMER_INTERNAL_TIMING_WHEEL_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/base/attributes.h"
#include "timer/internal/bucket.h"
#include "timer/internal/delay_queue.h"
#include "timer/timer_task.h"

namespace timingwheel {
namespace internal {

// FlushCounters
//
// What `TimingWheel::FlushChunk()` did, added to the caller's totals.
struct FlushCounters {
  int64_t buckets_flushed = 0;  // Buckets popped because their key was due.
  int64_t tasks_cascaded = 0;   // Not-yet-due tasks placed again or staged.
};

// TimingWheel
//
// Hierarchical timing wheel of intrusive buckets with a delay queue of
// buckets. Times are non-negative nanoseconds on the owner's clock, relative
// to the owner's origin. Not thread-safe.
class TimingWheel {
 public:
  // Creates a wheel whose level 0 has `wheel_size` buckets of `tick_nanos`.
  // Preconditions (validated by `Timer::Create()`): `tick_nanos > 0`,
  // `wheel_size >= 2`. Power-of-two sizes index slots with a mask.
  TimingWheel(int64_t tick_nanos, int64_t wheel_size);
  TimingWheel(const TimingWheel&) = delete;
  TimingWheel& operator=(const TimingWheel&) = delete;

  // TimingWheel::time()
  //
  // The time the wheel was last advanced to.
  int64_t time() const { return time_; }

  // TimingWheel::num_levels()
  //
  // The number of levels created so far (at least 1).
  int num_levels() const { return static_cast<int>(levels_.size()); }

  // TimingWheel::AdvanceTo()
  //
  // Moves the wheel's time, and each level's current tick, forward to `now`.
  // Never moves backwards. Does not flush anything.
  void AdvanceTo(int64_t now);

  // TimingWheel::Place()
  //
  // Links `task` (unlinked, with its due time set) into the bucket of the
  // lowest level that covers its due time; a task already due goes to the
  // current level-0 bucket. Creates overflow levels on first need. O(1) plus
  // an O(log buckets) heap repair when the bucket's key drops.
  void Place(TimerTask* task);

  // TimingWheel::EarliestKey()
  //
  // The smallest key of a bucket that holds a task: no task is due before
  // it. `kMaxNanos` when no bucket holds a task. First discards the buckets
  // that a cancel emptied from the top of the delay queue (see `Unlink()`),
  // so the key returned is never that of an empty bucket: amortized O(1)
  // plus an O(log buckets) removal per emptied bucket it meets.
  int64_t EarliestKey() {
    DropEmptyTop();
    return queue_.TopKey();
  }

  // TimingWheel::KeyLowerBound()
  //
  // The smallest key in the delay queue, which may be an emptied bucket's:
  // a lower bound of `EarliestKey()`, without discarding anything. Enough to
  // tell whether an add lowered the earliest key (an emptied bucket's key
  // was never below what `EarliestKey()` last reported, see `Unlink()`).
  int64_t KeyLowerBound() const { return queue_.TopKey(); }

  // TimingWheel::PopDueBucket()
  //
  // Removes from the delay queue and returns the non-empty bucket with the
  // smallest key if that key is <= `now`, or returns null (after discarding
  // the emptied buckets at the top). The caller empties it: the due
  // list with `PopDueTasks()`, any other bucket by splicing its list away
  // (after which it calls `ResetBucket()`).
  Bucket* PopDueBucket(int64_t now);

  // TimingWheel::IsDueList()
  //
  // Returns whether `bucket` is the sorted list of the current tick.
  bool IsDueList(const Bucket* bucket) const { return bucket == &due_list_; }

  // TimingWheel::InCurrentTick()
  //
  // Returns whether a task due at `due` belongs to the current level-0 tick
  // (or earlier), and so to the due list when it is flushed.
  bool InCurrentTick(int64_t due) const {
    return due - levels_[0].current < tick0_;  // Cannot overflow.
  }

  // TimingWheel::PopDueTasks()
  //
  // Unlinks up to `max_tasks` tasks due at or before `now` from the front of
  // the due list and appends them to `out`. Returns whether due tasks remain.
  // Re-keys the due list (back into the delay queue while non-empty).
  bool PopDueTasks(int64_t now, size_t max_tasks, std::vector<TimerTask*>& out);

  // TimingWheel::MergeIntoDueList()
  //
  // Moves every task of the list at `staging` (all due in the current tick)
  // into the due list, keeping it sorted by due time (stable: among equal
  // due times, tasks already in the list first, then the staged ones in
  // their order), and re-keys it. Sorts the staged tasks, then merges them
  // from the back in one pass: O(s log s + d) for s staged tasks and d in
  // the list, O(s log s) when they all come after the list.
  void MergeIntoDueList(ListNode* staging);

  // TimingWheel::FlushChunk()
  //
  // One chunk of the flush at `now` (the wheel advanced to it first, see
  // `AdvanceTo()`): pops every due bucket (the due list yields its due tasks
  // at once; other buckets join a work queue, level 0 ahead of the levels
  // above: small and urgent before large cascades), then walks up to
  // `limit` tasks of that queue (the due list's count too). Each task due
  // at `now` is appended to `expired`; each other one is placed again, or,
  // when due in the current tick, staged for the due list. Counts the
  // buckets popped and the tasks placed or staged in `*counters`.
  //
  // Returns whether more work is due at `now`: queued tasks left, or a
  // bucket whose key has passed. The caller then hands `expired` over,
  // releases its lock if it likes (the queued and staged tasks stay on
  // lists of the wheel, where `Unlink()` and `TakeAll()` find them), and
  // calls again, possibly at a later `now`, until it returns false: a large
  // cascade so never keeps the tasks due meanwhile waiting more than a
  // chunk.
  //
  // Staged tasks are merged into the sorted due list in batches: before the
  // flush ends, when one of them is due, or when the batch has grown to what
  // this flush merged so far. A task is so walked over by O(log n) merges:
  // 200,000 tasks due in one tick merge in O(n log n), not once per chunk
  // (O(n^2 / chunk)). The flush ends when a call returns false; its
  // bookkeeping then starts over. A flush left unfinished (by a shutdown)
  // keeps it, which only affects when the next one merges.
  bool FlushChunk(int64_t now, size_t limit, std::vector<TimerTask*>& expired,
                  FlushCounters* counters);

  // TimingWheel::Unlink()
  //
  // Removes a linked `task` from wherever it is in the wheel, including the
  // lists of a flush in progress (see `FlushChunk()`): an O(1) cancel, with
  // no heap operation. A bucket this empties stays in the delay
  // queue with its key until it reaches the top, where `EarliestKey()` and
  // `PopDueBucket()` discard it, or until a task is linked into it again,
  // which re-keys it in place (so a cancel followed by an add to the same
  // bucket costs no removal and no insertion). Users that sleep on
  // `EarliestKey()` never see such a key, so a cancelled timer costs no
  // wake-up unless it shared its bucket.
  void Unlink(TimerTask* task);

  // TimingWheel::ResetBucket()
  //
  // Marks an emptied bucket (taken by `PopDueBucket()`) as keyless.
  static void ResetBucket(Bucket* bucket) {
    bucket->key = kMaxNanos;
    bucket->min_due = kMaxNanos;
    bucket->links = 0;
  }

  // A bucket above level 0 that received at least this many tasks is
  // flushed early (see LinkIntoBucket): small buckets cascade fast enough.
  static constexpr int32_t kEarlyCascadeMinTasks = 64;
  // The early-cascade lead per task: a generous estimate of what moving one
  // task down a level costs (a cache miss on the task, a link).
  static constexpr int64_t kCascadeNanosPerTask = 500;

  // TimingWheel::EarliestTask()
  //
  // Returns a task with the earliest due time in the wheel (of those due at
  // that time, the first in its bucket), or null when the wheel is empty.
  // Reads each task of the buckets whose key is below the best due time
  // found so far (the buckets that could hold an earlier one), then those
  // of a flush in progress. Changes nothing.
  TimerTask* EarliestTask() const;

  // TimingWheel::TakeAll()
  //
  // Takes every task out of the wheel as chains (see `DetachChain()`), one
  // per non-empty bucket, then one per non-empty list of a flush in
  // progress, appending each chain's first node to `chains`, and empties
  // the delay queue. O(buckets). For shutdown: separate chains can be
  // walked side by side, their cache misses overlapping.
  void TakeAll(std::vector<ListNode*>& chains);

  // TimingWheel::AsTask() / AsNode()
  //
  // Converts between a task and its list links.
  static TimerTask* AsTask(ListNode* node) {
    return static_cast<TimerTask*>(node);
  }
  static ListNode* AsNode(TimerTask* task) { return task; }
  static int64_t DueOf(const TimerTask* task) { return task->due_nanos_; }

  // TimingWheel::SetDueOf()
  //
  // Sets the due time of an unlinked `task` before `Place()`. For tests that
  // drive the wheel directly; `Timer` sets it itself.
  static void SetDueOf(TimerTask* task, int64_t due) { task->due_nanos_ = due; }

 private:
  // One level of the wheel. Place() reads `last` of each level it passes
  // (one compare), and the divider and buckets of the one it stops at.
  struct Level {
    int64_t current = 0;  // Start of the current tick.
    // The latest due time this level takes: current + interval - 1,
    // saturated (kMaxNanos on the top level).
    int64_t last = 0;
    int64_t current_ticks = 0;  // current / tick.
    Divider divider{1};         // Divides by tick without a hardware division.
    std::unique_ptr<Bucket[]> buckets;
    int64_t tick = 0;
    int64_t interval = 0;  // kMaxNanos on the top level.
    // The cap of an early-cascade lead in this level's buckets: half the
    // interval of the level below (0 on level 0, which has no lead).
    int64_t lead_cap = 0;
    bool top = false;  // Takes every due time (interval not finite).
  };

  // Out of line: Place() calls it once per level in the wheel's life.
  ABSL_ATTRIBUTE_NOINLINE void AddLevel();
  // Removes from the delay queue the empty buckets at its top.
  void DropEmptyTop();
  // Sets `level`'s current tick to the one that contains `time`.
  static void MoveLevelTo(Level& level, int64_t time);
  // Links `task` into `bucket`, one of `level`'s, and lowers the bucket's
  // key if needed.
  void LinkIntoBucket(const Level& level, Bucket* bucket, TimerTask* task);
  // LinkIntoBucket()'s key update (out of line: most adds skip it), after
  // the link of a task due at `due` that made the count `links`.
  void RekeyBucket(const Level& level, Bucket* bucket, int64_t due,
                   int32_t links, bool stale);
  void RekeyDueList();
  // The slot of virtual tick number `ticks` (due / tick).
  int64_t SlotOf(int64_t ticks) const {
    return mask_ >= 0 ? (ticks & mask_) : ticks % wheel_size_;
  }

  const int64_t tick0_;
  const int64_t wheel_size_;
  const int64_t mask_;  // wheel_size - 1 for powers of two, else -1.
  int64_t time_ = 0;
  // Room for every level the wheel can have is reserved at construction,
  // so a level never moves (and each is one indirection away).
  std::vector<Level> levels_;
  Bucket due_list_;
  DelayQueue queue_;
  std::vector<TimerTask*> scratch_;  // Reused by MergeIntoDueList().

  // The flush in progress (see FlushChunk()): tasks of popped buckets still
  // to walk (level 0 in urgent_, the levels above in flushing_), and
  // not-yet-due tasks on their way to the due list (staging_). Lists, so
  // that Unlink() and a re-add work on them between chunks.
  ListNode urgent_;
  ListNode flushing_;
  ListNode staging_;
  size_t staged_ = 0;  // An upper bound: Unlink() may take some away.
  size_t merged_ = 0;  // Staged tasks merged by this flush so far.
  int64_t staged_min_ = kMaxNanos;
};

}  // namespace internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_INTERNAL_TIMING_WHEEL_H_
