// Copyright 2026 The timingwheel Authors.
//
// bucket.h
// -----------------------------------------------------------------------------
//
// A `Bucket` is one slot of a wheel level: an intrusive circular doubly
// linked list of tasks (O(1) insert, O(1) unlink from anywhere) plus the key
// the delay queue orders it by. This file also has the list primitives the
// wheel and the timer use on any list of tasks.
//
// Not thread-safe: every function here runs under the owning timer's lock.

#ifndef TIMINGWHEEL_TIMER_INTERNAL_BUCKET_H_
#define TIMINGWHEEL_TIMER_INTERNAL_BUCKET_H_

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "timer/internal/wheel_math.h"
#include "timer/timer_task.h"

namespace timingwheel {
namespace internal {

// InitList()
//
// Makes `head` the sentinel of an empty circular list.
inline void InitList(ListNode* head) { head->prev = head->next = head; }

// ListEmpty()
//
// Returns whether the list whose sentinel is `head` holds no node.
inline bool ListEmpty(const ListNode* head) { return head->next == head; }

// LinkBefore()
//
// Inserts unlinked `node` just before `position` (before the sentinel: at
// the back).
inline void LinkBefore(ListNode* position, ListNode* node) {
  node->next = position;
  node->prev = position->prev;
  position->prev->next = node;
  position->prev = node;
}

// Unlink()
//
// Removes `node` from its list and marks it unlinked (`prev == nullptr`).
inline void Unlink(ListNode* node) {
  node->prev->next = node->next;
  node->next->prev = node->prev;
  node->prev = node->next = nullptr;
}

// SpliceAll()
//
// Moves every node of the list at `from` to the back of the list at `to`,
// leaving `from` empty. O(1).
inline void SpliceAll(ListNode* from, ListNode* to) {
  if (ListEmpty(from)) return;
  ListNode* first = from->next;
  ListNode* last = from->prev;
  first->prev = to->prev;
  to->prev->next = first;
  last->next = to;
  to->prev = last;
  InitList(from);
}

// DetachChain()
//
// Empties the list at `head` and returns its first node, the nodes staying
// linked by `next` in list order with the last one's `next` null (a chain);
// null when the list was empty. O(1).
inline ListNode* DetachChain(ListNode* head) {
  if (ListEmpty(head)) return nullptr;
  ListNode* first = head->next;
  head->prev->next = nullptr;
  InitList(head);
  return first;
}

// Bucket
//
// A list of tasks and the key the delay queue orders it by: a lower bound of
// its tasks' due times (the earliest due time added since it was last
// emptied, less an early-cascade lead for large buckets above level 0; it
// may be stale-low after a cancel, which costs one early, harmless flush).
// `kMaxNanos` when not in the delay queue.
struct Bucket {
  Bucket() { InitList(&head); }
  Bucket(const Bucket&) = delete;
  Bucket& operator=(const Bucket&) = delete;

  ListNode head;
  int64_t key = kMaxNanos;      // Heap key: min_due, or earlier (see wheel).
  int64_t min_due = kMaxNanos;  // Earliest due time added since emptied.
  int32_t heap_index = -1;      // Position in the delay queue; -1 if absent.
  int32_t links = 0;            // Tasks linked in since it was emptied.
  int32_t level = 0;            // Wheel level; -1 for the due list.
};

static_assert(std::is_standard_layout_v<Bucket> && offsetof(Bucket, head) == 0,
              "BucketOf() relies on the head being the first member");

// BucketOf()
//
// The bucket whose list sentinel is `head`.
inline Bucket* BucketOf(ListNode* head) {
  return reinterpret_cast<Bucket*>(head);
}

}  // namespace internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_INTERNAL_BUCKET_H_
