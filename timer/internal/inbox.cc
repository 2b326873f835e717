// Copyright 2026 The timingwheel Authors.

#include "timer/internal/inbox.h"

namespace timingwheel {
namespace internal {
namespace {

std::atomic<size_t> next_stripe{0};

size_t ThisThreadStripe() {
  thread_local const size_t index =
      next_stripe.fetch_add(1, std::memory_order_relaxed) % Inbox::kStripes;
  return index;
}

}  // namespace

Inbox::Hooks Inbox::hooks_for_testing;

Inbox::Stripe& Inbox::Mine() { return stripes_[ThisThreadStripe()]; }

int32_t Inbox::Push(Stripe& stripe, ListNode* node) {
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

ListNode* Inbox::TakeStripe(Stripe& stripe) {
  // seq_cst, both: a drain right after the floor was closed (a seq_cst
  // store) is the sleeper's half of the protocol in inbox.h, and must not
  // be ordered before that store (free on x86, required on ARM).
  if (stripe.head.load() == nullptr) return nullptr;
  ListNode* node = stripe.head.exchange(nullptr);
  stripe.depth.store(0, std::memory_order_relaxed);
  // Newest first as pushed: reverse, so that tasks keep their push order.
  ListNode* reversed = nullptr;
  while (node != nullptr) {
    ListNode* const next = node->next;
    node->next = reversed;
    reversed = node;
    node = next;
  }
  return reversed;
}

ListNode* Inbox::TakeAll() {
  ListNode* first = nullptr;
  ListNode** tail = &first;
  for (Stripe& stripe : stripes_) {
    ListNode* chain = TakeStripe(stripe);
    if (chain == nullptr) continue;
    *tail = chain;
    while (chain->next != nullptr) chain = chain->next;
    tail = &chain->next;
  }
  if (void (*hook)() =
          hooks_for_testing.after_take_all.load(std::memory_order_relaxed)) {
    hook();
  }
  return first;
}

bool Inbox::AnyPushed() const {
  for (const Stripe& stripe : stripes_) {
    if (stripe.head.load() != nullptr) return true;
  }
  return false;
}

}  // namespace internal
}  // namespace timingwheel
