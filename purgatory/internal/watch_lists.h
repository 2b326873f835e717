// Copyright 2026 The timingwheel Authors.
//
// watch_lists.h
// -----------------------------------------------------------------------------
//
// `WatchLists<Key, Hash, Eq>`: the watch lists of a
// `DelayedOperationPurgatory` (see purgatory/delayed_operation_purgatory.h),
// and nothing else: which operations are watched under which key, sharded by
// key hash. It counts its entries (`watched()`) and the entries removed
// because their operation finished (`purged()`); the purgatory does the
// rest (the timer, the outcomes, the other counters). Private to
// //purgatory.
//
// Thread safety: every member may be called from any thread. Each shard has
// its own lock, held only for map operations, never while user code runs;
// `Watch()` takes the operation's `watch_mu_` and then shard locks (never the
// other way round).

#ifndef TIMINGWHEEL_PURGATORY_INTERNAL_WATCH_LISTS_H_
#define TIMINGWHEEL_PURGATORY_INTERNAL_WATCH_LISTS_H_

// clang-format off
// First, so that below C++17 the build stops at one line saying so.
#include "timer/internal/require_cxx17.h"  // IWYU pragma: keep
// clang-format on

#include <atomic>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "purgatory/delayed_operation.h"
#include "timer/internal/mutex.h"
#include "timer/internal/task_pool.h"
#include "timer/timer_task.h"

namespace timingwheel {
namespace internal {

// WatchLists
//
// The operations watched under each key: a list per key, removed when it
// empties; an operation watched under several keys is on each key's list
// once, and leaves all of them at once (`Unwatch()`).
template <typename Key, typename Hash, typename Eq>
class WatchLists {
 public:
  using OperationPtr = TaskPtr<DelayedOperation>;

  explicit WatchLists(int shards) {
    shards_.reserve(static_cast<size_t>(shards));
    for (int i = 0; i < shards; ++i)
      shards_.push_back(std::make_unique<Shard>());
  }

  WatchLists(const WatchLists&) = delete;
  WatchLists& operator=(const WatchLists&) = delete;

  // Watches `op` under `keys` (a key given twice is watched once), unless
  // it finished meanwhile (then it is on no list). The lists hold a
  // reference to `op`; its entries are stored in `op->watch_keys_`.
  void Watch(const OperationPtr& op, absl::Span<const Key> keys) {
    MutexLock watch_lock(op->watch_mu_);
    // Finished by another thread: its Detach() already ran (or finds the
    // keys below), so watching it now would leave it on the lists.
    if (!op->IsWaiting()) return;
    auto watch_keys = std::make_unique<WatchKeys>();
    // Reserved up front: slots point at the entries.
    watch_keys->entries.reserve(keys.size());
    for (const Key& key : keys) {
      Shard& shard = ShardFor(key);
      MutexLock shard_lock(shard.mu);
      std::unique_ptr<WatcherList>& list = shard.watchers[key];
      if (list == nullptr) list = std::make_unique<WatcherList>(key);
      // A key given twice is watched once.
      bool seen = false;
      for (const Entry& entry : watch_keys->entries) {
        if (entry.list == list.get()) seen = true;
      }
      if (seen) continue;
      watch_keys->entries.push_back(
          Entry{&shard, list.get(), list->slots.size()});
      list->slots.push_back(Slot{op, &watch_keys->entries.back()});
    }
    watched_.fetch_add(static_cast<int64_t>(watch_keys->entries.size()),
                       std::memory_order_relaxed);
    op->watch_keys_ = std::move(watch_keys);
  }

  // Calls `try_one(DelayedOperation*)` for every operation watched under
  // `key` when the call starts, with no lock held, and returns how many of
  // those calls returned true. Every such operation stays alive until this
  // returns, even if it leaves the lists meanwhile (also from `try_one`).
  template <typename F>
  int TryEach(const Key& key, F&& try_one) {
    // Raw pointers, on the stack up to 128 operations (1 KiB; with 32, a
    // check of Kafka's workload at 500,000/s spilled to the heap). No
    // reference per candidate (two locked instructions each): while this
    // check is registered on the shard, a reference that leaving one of the
    // shard's lists drops is first copied to `scan.kept` (see Unwatch()),
    // so every candidate stays alive until the check ends.
    absl::InlinedVector<DelayedOperation*, 128> candidates;
    Shard& shard = ShardFor(key);
    Scan scan;
    {
      MutexLock lock(shard.mu);
      auto it = shard.watchers.find(key);
      if (it == shard.watchers.end()) return 0;
      candidates.reserve(it->second->slots.size());
      for (const Slot& slot : it->second->slots) {
        candidates.push_back(slot.op.get());
      }
      scan.next = shard.scans;
      shard.scans = &scan;
    }
    // Unregisters the check before `scan.kept` drops its references (also
    // if a push below throws bad_alloc).
    struct EndScan {
      Shard& shard;
      Scan& scan;
      ~EndScan() {
        MutexLock lock(shard.mu);
        Scan** link = &shard.scans;
        while (*link != &scan) link = &(*link)->next;
        *link = scan.next;
      }
    } end_scan{shard, scan};
    int count = 0;
    for (DelayedOperation* op : candidates) {
      if (try_one(op)) ++count;
    }
    return count;
  }

  // The operations watched under `key` now (none for an unknown key).
  std::vector<OperationPtr> WatchedUnder(const Key& key) {
    std::vector<OperationPtr> ops;
    Shard& shard = ShardFor(key);
    MutexLock lock(shard.mu);
    auto it = shard.watchers.find(key);
    if (it == shard.watchers.end()) return ops;
    ops.reserve(it->second->slots.size());
    for (const Slot& slot : it->second->slots) ops.push_back(slot.op);
    return ops;
  }

  // Every operation on a watch list now.
  std::vector<OperationPtr> AllWatched() {
    std::vector<OperationPtr> all;
    for (const auto& shard : shards_) {
      MutexLock lock(shard->mu);
      for (const auto& watchers : shard->watchers) {
        for (const Slot& slot : watchers.second->slots) {
          all.push_back(slot.op);
        }
      }
    }
    return all;
  }

  // Removes an operation from every watch list in `taken` (its watch keys,
  // which the caller took from it under its watch_mu_ after its final
  // transition, so no other thread unwatches it), moving the dropped
  // references to `released`. With `count_as_purged`, counts the removed
  // entries as purged.
  void Unwatch(std::unique_ptr<WatchKeysBase> taken, bool count_as_purged,
               KeepAlive& released) {
    if (taken == nullptr) return;
    // The slots point at these entries until each is removed below.
    auto* watch_keys = static_cast<WatchKeys*>(taken.get());
    int64_t removed = 0;
    for (Entry& entry : watch_keys->entries) {
      Shard& shard = *entry.shard;
      MutexLock shard_lock(shard.mu);
      WatcherList& list = *entry.list;
      std::vector<Slot>& slots = list.slots;
      Slot& slot = slots[entry.index];
      assert(slot.entry == &entry);
      // A check in progress may hold a raw pointer to it.
      for (Scan* scan = shard.scans; scan != nullptr; scan = scan->next) {
        scan->kept.push_back(slot.op);
      }
      released.push_back(std::move(slot.op));
      if (&slot != &slots.back()) {
        slot = std::move(slots.back());
        slot.entry->index = entry.index;
      }
      slots.pop_back();
      // An empty list goes (no entry points at it any more).
      if (slots.empty()) shard.watchers.erase(list.key);
      ++removed;
    }
    watched_.fetch_sub(removed, std::memory_order_relaxed);
    if (count_as_purged) purged_.fetch_add(removed, std::memory_order_relaxed);
  }

  // Watch-list entries now (one per operation and key).
  int64_t watched() const { return watched_.load(std::memory_order_relaxed); }
  // Entries removed because their operation completed or expired.
  int64_t purged() const { return purged_.load(std::memory_order_relaxed); }

  // Keys with a non-empty watch list now (each shard read under its lock).
  int64_t NumKeys() const {
    int64_t keys = 0;
    for (const auto& shard : shards_) {
      MutexLock lock(shard->mu);
      keys += static_cast<int64_t>(shard->watchers.size());
    }
    return keys;
  }

 private:
  struct Shard;
  struct WatcherList;

  // Where an operation stands on one watch list: its list and its index in
  // the list's slots (kept up to date under the shard's lock when another
  // slot moves into its place).
  struct Entry {
    Shard* shard;
    WatcherList* list;
    size_t index;  // Guarded by shard->mu.
  };

  // An operation's watch entries, one per distinct key (one allocation,
  // from the timer's task pool: it is made on the thread that hands the
  // operation in and usually freed on the one that completes it, where
  // malloc takes its slow path).
  struct WatchKeys final : WatchKeysBase {
    static void* operator new(std::size_t size) {
      return TaskPool::Allocate(size);
    }
    static void operator delete(void* block, std::size_t size) noexcept {
      TaskPool::Free(block, size);
    }
    absl::InlinedVector<Entry, 4> entries;
  };
  static_assert(alignof(WatchKeys) <= TaskPool::kAlignment,
                "WatchKeys must fit the task pool's alignment");

  // One slot of a watch list: the operation (a reference the list holds)
  // and its entry for this list, whose index is updated when the slot moves.
  struct Slot {
    OperationPtr op;
    Entry* entry;
  };

  // The operations watched under one key, in no particular order: removal
  // swaps the last slot into the hole (O(1), no hashing), and a check scans
  // a contiguous array. Removed from its shard when it empties.
  struct WatcherList {
    explicit WatcherList(const Key& k) : key(k) {}
    const Key key;
    std::vector<Slot> slots;
  };

  // A TryEach() in progress on a shard (on its stack), which tries
  // operations it holds only raw pointers to: each reference that leaves
  // one of the shard's lists meanwhile is copied to `kept`, released when
  // the check ends.
  struct Scan {
    Scan* next = nullptr;                       // Guarded by the shard's mu.
    absl::InlinedVector<OperationPtr, 8> kept;  // Guarded by the shard's mu
                                                // while registered.
  };

  struct Shard {
    Mutex mu;
    // Lists are boxed so entries can point at them across rehashes.
    absl::flat_hash_map<Key, std::unique_ptr<WatcherList>, Hash, Eq> watchers
        ABSL_GUARDED_BY(mu);
    Scan* scans ABSL_GUARDED_BY(mu) = nullptr;  // The checks in progress.
  };

  Shard& ShardFor(const Key& key) const {
    const uint64_t hash = static_cast<uint64_t>(Hash()(key));
    // High bits: the shard's hash map indexes by the low ones.
    return *shards_[(hash >> 32) % shards_.size()];
  }

  std::vector<std::unique_ptr<Shard>> shards_;
  std::atomic<int64_t> watched_{0};
  std::atomic<int64_t> purged_{0};
};

}  // namespace internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_PURGATORY_INTERNAL_WATCH_LISTS_H_
