// Copyright 2026 The timingwheel Authors.

#include "timer/internal/timing_wheel.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/base/attributes.h"
#include "timer/internal/wheel_math.h"

namespace timingwheel {
namespace internal {

TimingWheel::TimingWheel(int64_t tick_nanos, int64_t wheel_size)
    : tick0_(tick_nanos),
      wheel_size_(wheel_size),
      mask_(IsPowerOfTwo(wheel_size) ? wheel_size - 1 : -1) {
  due_list_.level = -1;
  InitList(&urgent_);
  InitList(&flushing_);
  InitList(&staging_);
  // Every level there can be (the top one is the first whose interval does
  // not fit in 64 bits): AddLevel() then never moves the levels.
  size_t max_levels = 1;
  while (SaturatingMultiply(
             LevelTick(tick0_, wheel_size_, static_cast<int>(max_levels) - 1),
             wheel_size_) != kMaxNanos) {
    ++max_levels;
  }
  levels_.reserve(max_levels);
  AddLevel();
}

void TimingWheel::AddLevel() {
  Level level;
  const int index = static_cast<int>(levels_.size());
  level.tick = LevelTick(tick0_, wheel_size_, index);
  level.divider = Divider(level.tick);
  level.interval = SaturatingMultiply(level.tick, wheel_size_);
  // A level whose interval does not fit in 64 bits (or that could not be
  // followed by one whose tick fits) covers every representable due time.
  level.top = level.interval == kMaxNanos;
  level.lead_cap = index == 0 ? 0 : levels_.back().interval / 2;
  MoveLevelTo(level, time_);
  level.buckets = std::make_unique<Bucket[]>(static_cast<size_t>(wheel_size_));
  for (int64_t i = 0; i < wheel_size_; ++i) level.buckets[i].level = index;
  // Reserved in the constructor: the levels do not move.
  levels_.push_back(std::move(level));
}

void TimingWheel::MoveLevelTo(Level& level, int64_t time) {
  level.current_ticks = level.divider.Divide(time);
  level.current = level.current_ticks * level.tick;
  // The due times with due - current < interval. Near the end of time the
  // sum saturates, which takes every due time, as that test does.
  level.last =
      level.top ? kMaxNanos : SaturatingAdd(level.current, level.interval - 1);
}

void TimingWheel::AdvanceTo(int64_t now) {
  if (now <= time_) return;
  time_ = now;
  for (Level& level : levels_) MoveLevelTo(level, now);
}

// Inline in Place() (its two calls): the common add links and returns.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline void TimingWheel::LinkIntoBucket(
    const Level& level, Bucket* bucket, TimerTask* task) {
  const int64_t due = task->due_nanos_;
  // Emptied by cancels but still in the delay queue (see Unlink()): its key
  // is stale and is replaced, up or down, instead of only lowered.
  const bool stale = bucket->heap_index >= 0 && ListEmpty(&bucket->head);
  LinkBefore(&bucket->head, AsNode(task));
  int32_t links = bucket->links;
  if (links < std::numeric_limits<int32_t>::max()) bucket->links = ++links;
  // The key RekeyBucket() computes is a function of min_due, of the
  // early-cascade lead (which changes only when `links` reaches a power of
  // two at or above kEarlyCascadeMinTasks) and of time_ (which only rises).
  // Unless this add lowers min_due, changes the lead or finds the key
  // stale, that key is no lower than the one computed at the bucket's
  // previous add, which the key is at or below already: nothing to do
  // (most adds to a bucket).
  if (due >= bucket->min_due && !stale &&
      (links < kEarlyCascadeMinTasks || (links & (links - 1)) != 0 ||
       bucket->level == 0)) {
    return;
  }
  RekeyBucket(level, bucket, due, links, stale);
}

void TimingWheel::RekeyBucket(const Level& level, Bucket* bucket, int64_t due,
                              int32_t links, bool stale) {
  if (due < bucket->min_due) bucket->min_due = due;
  int64_t key = bucket->min_due;
  if (bucket->level > 0 && links >= kEarlyCascadeMinTasks) {
    // A large bucket above level 0 is flushed ahead of its earliest task,
    // by about the time its cascade takes, so that the cascade is over
    // before that task is due instead of making it (and every task due
    // while it runs) late. Capped at half the level below's interval (so at
    // least half the tasks can move down); never before the wheel's time.
    // The count is rounded up to a power of two (an early cascade costs
    // little, a late one makes tasks late), so that the key (and the
    // reaper's deadline) moves about log2(n) times, not on every add.
    const int64_t rounded_links =
        int64_t{2} << (31 - __builtin_clz(static_cast<uint32_t>(links)));
    const int64_t lead =
        std::min(rounded_links * kCascadeNanosPerTask, level.lead_cap);
    key = std::max(key - lead, time_);
  }
  if (key < bucket->key || (stale && key != bucket->key)) {
    bucket->key = key;
    queue_.Update(bucket);
  }
}

void TimingWheel::Place(TimerTask* task) {
  const int64_t due = task->due_nanos_;
  Level* level = &levels_[0];
  if (due - level->current < tick0_) {
    // Due in the current tick, or already due: the current bucket. (Both
    // are non-negative, so unlike `current + tick0_` near the end of time,
    // the difference cannot overflow.)
    LinkIntoBucket(*level, &level->buckets[SlotOf(level->current_ticks)], task);
    return;
  }
  // The lowest level that covers `due`. Invariant: due >= level->current +
  // level->tick (see header), so the slot is never the current one.
  while (due > level->last) {
    // Reserved in the constructor: a new level moves none, `level` stays.
    if (level == &levels_.back()) AddLevel();
    ++level;
  }
  LinkIntoBucket(*level, &level->buckets[SlotOf(level->divider.Divide(due))],
                 task);
}

void TimingWheel::DropEmptyTop() {
  for (Bucket* top = queue_.Top(); top != nullptr && ListEmpty(&top->head);
       top = queue_.Top()) {
    queue_.Remove(top);
    ResetBucket(top);
  }
}

Bucket* TimingWheel::PopDueBucket(int64_t now) {
  DropEmptyTop();
  Bucket* top = queue_.Top();
  if (top == nullptr || top->key > now) return nullptr;
  queue_.Remove(top);
  return top;
}

void TimingWheel::RekeyDueList() {
  if (ListEmpty(&due_list_.head)) {
    ResetBucket(&due_list_);
    queue_.Remove(&due_list_);
    return;
  }
  due_list_.key = AsTask(due_list_.head.next)->due_nanos_;
  queue_.Update(&due_list_);
}

void TimingWheel::Unlink(TimerTask* task) {
  ListNode* neighbour = AsNode(task)->prev;
  internal::Unlink(AsNode(task));
  // A circular list whose only node is its sentinel is empty, and that node
  // is a bucket's head unless it is one of the flush's lists.
  if (neighbour->next != neighbour) return;
  if (neighbour == &urgent_ || neighbour == &flushing_ ||
      neighbour == &staging_) {
    return;
  }
  // The bucket stays in the delay queue with its key (a heap removal per
  // cancel costs more than discarding it at the top later, and nothing when
  // an add refills it first). Its content bounds restart.
  Bucket* bucket = BucketOf(neighbour);
  bucket->min_due = kMaxNanos;
  bucket->links = 0;
}

bool TimingWheel::PopDueTasks(int64_t now, size_t max_tasks,
                              std::vector<TimerTask*>& out) {
  ListNode* head = &due_list_.head;
  size_t taken = 0;
  bool more = false;
  // Walked without unlinking each task (which would write to the next one
  // at once): the next is prefetched while this one is taken, and the list
  // is closed over the taken part at the end.
  ListNode* node = head->next;
  while (node != head && AsTask(node)->due_nanos_ <= now) {
    if (taken == max_tasks) {
      more = true;
      break;
    }
    ListNode* const next = node->next;
    __builtin_prefetch(next, 1);
    node->prev = node->next = nullptr;  // Unlinked.
    out.push_back(AsTask(node));
    ++taken;
    node = next;
  }
  head->next = node;
  node->prev = head;
  RekeyDueList();
  return more;
}

void TimingWheel::MergeIntoDueList(ListNode* staging) {
  if (ListEmpty(staging)) return;
  scratch_.clear();
  while (!ListEmpty(staging)) {
    ListNode* node = staging->next;
    internal::Unlink(node);
    scratch_.push_back(AsTask(node));
  }
  // Sort the chunk alone (at most one flush chunk), then merge it into the
  // sorted due list from the back in one pass: linear in the chunk plus the
  // tasks of the due list due after the chunk's earliest (none when the
  // chunk comes after the list, the common case), never a re-sort of the
  // whole list. Stable: among equal due times, tasks already in the list
  // come first, then the chunk's in their flush order.
  std::stable_sort(scratch_.begin(), scratch_.end(),
                   [](const TimerTask* a, const TimerTask* b) {
                     return a->due_nanos_ < b->due_nanos_;
                   });
  ListNode* const head = &due_list_.head;
  ListNode* position = head;  // Insert before this node.
  for (auto it = scratch_.rbegin(); it != scratch_.rend(); ++it) {
    TimerTask* task = *it;
    while (position->prev != head &&
           AsTask(position->prev)->due_nanos_ > task->due_nanos_) {
      position = position->prev;
    }
    LinkBefore(position, AsNode(task));
    position = AsNode(task);
  }
  scratch_.clear();
  RekeyDueList();
}

bool TimingWheel::FlushChunk(int64_t now, size_t limit,
                             std::vector<TimerTask*>& expired,
                             FlushCounters* counters) {
  int64_t buckets_flushed = 0;
  // What the chunk may still take (one count rather than a count and its
  // limit: a register fewer to keep across Place() below).
  size_t room = limit;
  while (Bucket* bucket = PopDueBucket(now)) {
    ++buckets_flushed;
    if (IsDueList(bucket)) {
      const size_t before = expired.size();
      PopDueTasks(now, room, expired);
      room -= expired.size() - before;
      if (room == 0) break;
      continue;
    }
    SpliceAll(&bucket->head, bucket->level == 0 ? &urgent_ : &flushing_);
    ResetBucket(bucket);
  }
  ListNode* queue = ListEmpty(&urgent_) ? &flushing_ : &urgent_;
  // The queue is walked without unlinking each task from it, which would
  // write to the next task at once and so wait for its cache miss: the
  // next task is prefetched while this one is placed, and the queue is
  // closed over the walked part when the chunk ends or it runs dry.
  ListNode* node = queue->next;
  // The tasks placed again are counted after the walk, not in it (the
  // walked ones less the expired ones), for the same reason.
  const size_t room_before_walk = room;
  const size_t expired_before_walk = expired.size();
  while (room > 0 && node != queue) {
    ListNode* const next = node->next;
    __builtin_prefetch(next, 1);
    node->prev = node->next = nullptr;  // Unlinked.
    TimerTask* task = AsTask(node);
    const int64_t due = task->due_nanos_;
    if (due <= now) {
      expired.push_back(task);
    } else {
      if (InCurrentTick(due)) {
        LinkBefore(&staging_, AsNode(task));
        ++staged_;
        staged_min_ = std::min(staged_min_, due);
      } else {
        Place(task);
      }
    }
    --room;
    node = next;
    if (node == queue) {  // Walked it all.
      InitList(queue);
      if (queue == &urgent_) {
        queue = &flushing_;
        node = queue->next;
      }
    }
  }
  if (node != queue) {  // The rest waits for the next chunk.
    queue->next = node;
    node->prev = queue;
  }
  const size_t tasks_cascaded =
      (room_before_walk - room) - (expired.size() - expired_before_walk);
  bool more =
      !ListEmpty(&urgent_) || !ListEmpty(&flushing_) || EarliestKey() <= now;
  if (staged_ > 0 && (!more || staged_min_ <= now || staged_ >= merged_)) {
    MergeIntoDueList(&staging_);
    merged_ += staged_;
    staged_ = 0;
    staged_min_ = kMaxNanos;
    more = more || EarliestKey() <= now;
  }
  if (!more) merged_ = 0;  // The flush is over (nothing is staged).
  counters->buckets_flushed += buckets_flushed;
  counters->tasks_cascaded += static_cast<int64_t>(tasks_cascaded);
  return more;
}

void TimingWheel::TakeAll(std::vector<ListNode*>& chains) {
  if (ListNode* chain = DetachChain(&due_list_.head)) chains.push_back(chain);
  RekeyDueList();
  for (Level& level : levels_) {
    for (int64_t i = 0; i < wheel_size_; ++i) {
      Bucket* bucket = &level.buckets[i];
      if (ListNode* chain = DetachChain(&bucket->head)) chains.push_back(chain);
      queue_.Remove(bucket);
      ResetBucket(bucket);
    }
  }
  for (ListNode* list : {&urgent_, &flushing_, &staging_}) {
    if (ListNode* chain = DetachChain(list)) chains.push_back(chain);
  }
}

TimerTask* TimingWheel::EarliestTask() const {
  TimerTask* best = nullptr;
  int64_t best_due = kMaxNanos;
  queue_.VisitBelow(best_due, [&](const Bucket* bucket) {
    for (const ListNode* node = bucket->head.next; node != &bucket->head;
         node = node->next) {
      const TimerTask* task = static_cast<const TimerTask*>(node);
      if (task->due_nanos_ < best_due) {
        best_due = task->due_nanos_;
        best = const_cast<TimerTask*>(task);
      }
    }
  });
  for (const ListNode* list : {&urgent_, &flushing_, &staging_}) {
    for (const ListNode* node = list->next; node != list; node = node->next) {
      const TimerTask* task = static_cast<const TimerTask*>(node);
      if (task->due_nanos_ < best_due) {
        best_due = task->due_nanos_;
        best = const_cast<TimerTask*>(task);
      }
    }
  }
  return best;
}

}  // namespace internal
}  // namespace timingwheel
