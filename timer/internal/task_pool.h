// Copyright 2026 The timingwheel Authors.
//
// task_pool.h
// -----------------------------------------------------------------------------
//
// The memory of the tasks `Timer::Schedule()` creates. This file defines:
//
//   * `TaskPool`: a process-wide pool of small blocks in size classes of 8
//     bytes (up to `TaskPool::kMaxBlockSize`), with a cache per thread.
//   * `TaskPoolStats`: a snapshot of the pool's sizes (for tests).
//
// Why: at 10^6 pending, a third of a schedule's cost was malloc and the
// page faults of memory touched for the first time. The pool hands out
// blocks from a per-thread cache (an array of pointers, no lock), refills it
// with a batch from the central free list or carves a batch from a chunk,
// and keeps the memory it has used for the next tasks (no page is faulted
// twice). `Reserve()` pre-faults room in advance (`TimerOptions::
// expected_pending`), so that the first touch is paid at `Timer::Create()`.
//
// Remote frees: a task is often freed on another thread than the one that
// created it (the executor drops the last reference). A thread's cache that
// grows past its capacity gives half back to the central free list, where
// any thread takes it; a thread that exits gives back its whole cache. So a
// producer/consumer pair recycles its blocks through the central list, one
// lock acquisition per batch of blocks.
//
// Lifetime: the pool never returns memory to the system while the process
// runs: it is as large as the most task blocks alive at once (plus what
// `Reserve()` asked for and the per-thread caches), and is reused by every
// timer of the process. It is never destroyed (a task may be freed during
// static destruction); its chunks stay reachable to the end, so leak
// checkers (LeakSanitizer, valgrind) report no leak.
//
// Sanitizers: built with AddressSanitizer, a free block is poisoned
// (`ASAN_POISON_MEMORY_REGION`), so a use after free of a task is reported
// while its block is free (ASan's quarantine, which delays reuse, does not
// apply to pooled blocks: a reused block is a live task again). ThreadSanitizer
// sees the pool's hand-offs through its mutex.
//
// Thread safety: every function is thread-safe.

#ifndef TIMINGWHEEL_TIMER_INTERNAL_TASK_POOL_H_
#define TIMINGWHEEL_TIMER_INTERNAL_TASK_POOL_H_

#include <cstddef>
#include <cstdint>

namespace timingwheel {
namespace internal {

// TaskPoolStats: what the pool holds, in bytes and blocks.
struct TaskPoolStats {
  int64_t chunk_bytes = 0;          // Memory taken from the system, all chunks.
  int64_t uncarved_bytes = 0;       // Chunk memory never handed out yet.
  int64_t central_free_blocks = 0;  // Free blocks on the central list.
};

// TaskPool
//
// `Allocate()` and `Free()` are what a pooled task's `operator new` and
// `operator delete` call. Blocks are aligned to `kAlignment`; a size above
// `kMaxBlockSize` is passed to the global `operator new`.
class TaskPool {
 public:
  static constexpr size_t kAlignment = 8;
  static constexpr size_t kMaxBlockSize = 256;

  // TaskPool::Allocate()
  //
  // Returns a block of at least `size` bytes (never null; throws
  // `std::bad_alloc` like `operator new` when memory runs out).
  static void* Allocate(size_t size);

  // TaskPool::Free()
  //
  // Returns `block`, which `Allocate(size)` returned (on any thread), to the
  // pool. `size` must be the size it was allocated with.
  static void Free(void* block, size_t size) noexcept;

  // TaskPool::Reserve()
  //
  // Makes sure the pool has room for `count` blocks of `min_block_size` to
  // `max_block_size` bytes: it counts its uncarved memory (which any size
  // may use; in blocks of `max_block_size`) and the free blocks of those
  // sizes on the central list, adds what is missing, and touches every page
  // it adds, so that later allocations fault no page. Repeated calls do not
  // grow the pool beyond the largest request (plus the blocks in use).
  // Throws `std::bad_alloc` when memory runs out.
  static void Reserve(size_t min_block_size, size_t max_block_size,
                      size_t count);

  // TaskPool::Stats()
  //
  // Returns a snapshot of the pool's sizes.
  static TaskPoolStats Stats();
};

}  // namespace internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_INTERNAL_TASK_POOL_H_
