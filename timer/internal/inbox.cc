// Copyright 2026 The timingwheel Authors.

#include "timer/internal/inbox.h"

namespace timingwheel {
namespace internal {
namespace {

std::atomic<uint32_t> next_stripe{0};

}  // namespace

Inbox::Hooks Inbox::hooks_for_testing;

uint32_t Inbox::AssignThisThreadStripe() {
  const uint32_t stripe =
      next_stripe.fetch_add(1, std::memory_order_relaxed) % kStripes;
  this_thread_stripe = stripe + 1;
  return stripe;
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
