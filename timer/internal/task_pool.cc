// Copyright 2026 The timingwheel Authors.
//
// The task pool (see task_pool.h): per-thread caches of free blocks, one
// central free list per size class behind one mutex, and chunks carved into
// blocks a batch at a time.

#include "timer/internal/task_pool.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/base/config.h"

#ifdef ABSL_HAVE_ADDRESS_SANITIZER
#include <sanitizer/asan_interface.h>
#endif

namespace timingwheel {
namespace internal {
namespace {

constexpr size_t kNumClasses = TaskPool::kMaxBlockSize / TaskPool::kAlignment;
// Blocks a thread keeps per class; past it, half goes to the central list.
constexpr uint32_t kCacheCapacity = 128;
// Blocks moved between a thread's cache and the central list at a time.
constexpr uint32_t kBatch = kCacheCapacity / 2;
// Chunks carved on demand (pages are faulted when first used).
constexpr size_t kChunkBytes = size_t{256} << 10;
constexpr size_t kPageBytes = 4096;

size_t ClassOf(size_t size) {
  return size == 0 ? 0 : (size - 1) / TaskPool::kAlignment;
}
size_t ClassBytes(size_t size_class) {
  return (size_class + 1) * TaskPool::kAlignment;
}

void Poison(void* block, size_t bytes) {
#ifdef ABSL_HAVE_ADDRESS_SANITIZER
  ASAN_POISON_MEMORY_REGION(block, bytes);
#else
  (void)block;
  (void)bytes;
#endif
}
void Unpoison(void* block, size_t bytes) {
#ifdef ABSL_HAVE_ADDRESS_SANITIZER
  ASAN_UNPOISON_MEMORY_REGION(block, bytes);
#else
  (void)block;
  (void)bytes;
#endif
}

// A thread's free blocks of one class: a stack of pointers, so that free
// blocks are never written (and stay poisoned under ASan).
struct ClassCache {
  uint32_t count = 0;
  void* slots[kCacheCapacity];
};

struct ThreadCache {
  ClassCache* classes[kNumClasses] = {};
};

struct Region {
  char* begin;
  char* end;
};

// The central free lists and the chunks. Never destroyed: tasks may be
// freed during static destruction, and the chunks stay reachable.
struct Central {
  std::mutex mu;
  // Free blocks per class. Each vector's capacity is at least the number of
  // blocks ever carved for its class, so pushing back never allocates.
  std::vector<void*> free[kNumClasses];
  int64_t carved[kNumClasses] = {};
  int64_t free_bytes = 0;  // Of the blocks on the free lists.
  // Uncarved memory, carved from the back one.
  std::vector<Region> regions;
  int64_t uncarved_bytes = 0;
  // Every chunk taken from the system (kept reachable, never freed).
  std::vector<void*> chunks;
  int64_t chunk_bytes = 0;
};

Central& TheCentral() {
  static Central* const central = new Central;
  return *central;
}

// Adds a chunk of `bytes` to the regions. With `prefault`, touches each of
// its pages first. Requires central.mu.
void AddChunkLocked(Central& central, size_t bytes, bool prefault) {
  central.chunks.reserve(central.chunks.size() + 1);
  central.regions.reserve(central.regions.size() + 1);
  char* chunk = static_cast<char*>(::operator new(bytes));
  if (prefault) {
    for (size_t offset = 0; offset < bytes; offset += kPageBytes) {
      static_cast<volatile char*>(chunk)[offset] = 0;
    }
  }
  Poison(chunk, bytes);
  central.chunks.push_back(chunk);
  central.chunk_bytes += static_cast<int64_t>(bytes);
  // A pre-faulted chunk is carved next; one made on demand after the rest.
  if (prefault) {
    central.regions.push_back(Region{chunk, chunk + bytes});
  } else {
    central.regions.insert(central.regions.begin(),
                           Region{chunk, chunk + bytes});
  }
  central.uncarved_bytes += static_cast<int64_t>(bytes);
}

// Takes up to `wanted` free blocks of `size_class` into `out` (at least
// one): from the free list, else carved. Requires central.mu.
uint32_t TakeLocked(Central& central, size_t size_class, uint32_t wanted,
                    void** out) {
  std::vector<void*>& free = central.free[size_class];
  const size_t bytes = ClassBytes(size_class);
  uint32_t taken = 0;
  while (taken < wanted && !free.empty()) {
    out[taken++] = free.back();
    free.pop_back();
  }
  central.free_bytes -= static_cast<int64_t>(taken * bytes);
  if (taken > 0) return taken;
  // Carve: from the last region, dropping regions too small for a block.
  while (central.regions.empty() ||
         static_cast<size_t>(central.regions.back().end -
                             central.regions.back().begin) < bytes) {
    if (!central.regions.empty()) {
      const Region& left = central.regions.back();
      central.uncarved_bytes -= left.end - left.begin;  // A tail < 256 B.
      central.regions.pop_back();
    }
    if (central.regions.empty()) {
      AddChunkLocked(central, kChunkBytes, /*prefault=*/false);
    }
  }
  // Room on the free list for every block carved, so Free never allocates.
  const int64_t carved_after = central.carved[size_class] + wanted;
  if (static_cast<int64_t>(free.capacity()) < carved_after) {
    free.reserve(std::max<size_t>(static_cast<size_t>(carved_after),
                                  2 * free.capacity()));
  }
  Region& region = central.regions.back();
  while (taken < wanted &&
         static_cast<size_t>(region.end - region.begin) >= bytes) {
    out[taken++] = region.begin;
    region.begin += bytes;
  }
  central.carved[size_class] += taken;
  central.uncarved_bytes -= static_cast<int64_t>(taken * bytes);
  return taken;
}

// Gives `count` blocks of `size_class` back to the free list. Requires
// central.mu.
void PutLocked(Central& central, size_t size_class, void* const* blocks,
               uint32_t count) {
  std::vector<void*>& free = central.free[size_class];
  free.insert(free.end(), blocks, blocks + count);
  central.free_bytes += static_cast<int64_t>(count * ClassBytes(size_class));
}

thread_local ThreadCache* tls_cache = nullptr;
// Set once this thread's cache was given back at thread exit: from then on
// (other thread-local destructors freeing tasks) the thread uses the
// central list directly.
thread_local bool tls_exited = false;

void ReleaseThreadCache() {
  ThreadCache* const cache = std::exchange(tls_cache, nullptr);
  tls_exited = true;
  if (cache == nullptr) return;
  Central& central = TheCentral();
  {
    std::lock_guard<std::mutex> lock(central.mu);
    for (size_t c = 0; c < kNumClasses; ++c) {
      if (cache->classes[c] == nullptr) continue;
      PutLocked(central, c, cache->classes[c]->slots, cache->classes[c]->count);
    }
  }
  for (ClassCache* class_cache : cache->classes) delete class_cache;
  delete cache;
}

// Gives the thread's cache back when the thread exits. Constructed (and
// its destructor registered) the first time the thread makes a cache.
struct CacheReleaser {
  bool armed = false;
  ~CacheReleaser() {
    if (armed) ReleaseThreadCache();
  }
};
thread_local CacheReleaser tls_releaser;

// The calling thread's cache of `size_class`, made on first use; null once
// the thread is exiting.
ClassCache* ClassCacheOf(size_t size_class) {
  if (tls_exited) return nullptr;
  if (tls_cache == nullptr) {
    tls_releaser.armed = true;
    tls_cache = new ThreadCache;
  }
  ClassCache*& class_cache = tls_cache->classes[size_class];
  if (class_cache == nullptr) class_cache = new ClassCache;
  return class_cache;
}

// Out of line (and so are the frees'): the fast paths of Allocate() and Free()
// then need no saved registers.
ABSL_ATTRIBUTE_NOINLINE void* AllocateSlow(size_t size_class) {
  Central& central = TheCentral();
  ClassCache* const cache = ClassCacheOf(size_class);
  void* block = nullptr;
  if (cache == nullptr) {
    std::lock_guard<std::mutex> lock(central.mu);
    TakeLocked(central, size_class, 1, &block);
  } else {
    {
      std::lock_guard<std::mutex> lock(central.mu);
      cache->count = TakeLocked(central, size_class, kBatch, cache->slots);
    }
    block = cache->slots[--cache->count];
  }
  Unpoison(block, ClassBytes(size_class));
  return block;
}

ABSL_ATTRIBUTE_NOINLINE void FreeSlow(size_t size_class, void* block) {
  Central& central = TheCentral();
  ClassCache* cache = nullptr;
  try {
    cache = ClassCacheOf(size_class);
  } catch (const std::bad_alloc&) {
    // No memory for a cache: straight to the central list.
  }
  std::lock_guard<std::mutex> lock(central.mu);
  if (cache == nullptr) {
    PutLocked(central, size_class, &block, 1);
    return;
  }
  if (cache->count == kCacheCapacity) {
    // Full: the older half goes to the central list for other threads.
    PutLocked(central, size_class, cache->slots, kBatch);
    std::move(cache->slots + kBatch, cache->slots + kCacheCapacity,
              cache->slots);
    cache->count -= kBatch;
  }
  cache->slots[cache->count++] = block;
}

}  // namespace

void* TaskPool::Allocate(size_t size) {
  if (size > kMaxBlockSize) return ::operator new(size);
  const size_t size_class = ClassOf(size);
  if (ThreadCache* const cache = tls_cache) {
    ClassCache* const class_cache = cache->classes[size_class];
    if (class_cache != nullptr && class_cache->count > 0) {
      void* const block = class_cache->slots[--class_cache->count];
      Unpoison(block, ClassBytes(size_class));
      return block;
    }
  }
  return AllocateSlow(size_class);
}

void TaskPool::Free(void* block, size_t size) noexcept {
  if (block == nullptr) return;
  if (size > kMaxBlockSize) {
    ::operator delete(block);
    return;
  }
  const size_t size_class = ClassOf(size);
  Poison(block, ClassBytes(size_class));
  if (ThreadCache* const cache = tls_cache) {
    ClassCache* const class_cache = cache->classes[size_class];
    if (class_cache != nullptr && class_cache->count < kCacheCapacity) {
      class_cache->slots[class_cache->count++] = block;
      return;
    }
  }
  FreeSlow(size_class, block);
}

void TaskPool::Reserve(size_t min_block_size, size_t max_block_size,
                       size_t count) {
  if (max_block_size == 0 || count == 0) return;
  const size_t size_class = ClassOf(std::min(max_block_size, kMaxBlockSize));
  const size_t bytes_per_block = ClassBytes(size_class);
  Central& central = TheCentral();
  std::lock_guard<std::mutex> lock(central.mu);
  size_t room = 0;
  for (size_t c = ClassOf(std::min(min_block_size, max_block_size));
       c <= size_class; ++c) {
    room += central.free[c].size();
  }
  for (const Region& region : central.regions) {
    room += static_cast<size_t>(region.end - region.begin) / bytes_per_block;
  }
  if (count <= room) return;
  const size_t missing = (count - room) * bytes_per_block;
  // Whole pages, at least one chunk's worth.
  const size_t chunk = std::max(
      kChunkBytes, (missing + kPageBytes - 1) / kPageBytes * kPageBytes);
  AddChunkLocked(central, chunk, /*prefault=*/true);
}

TaskPoolStats TaskPool::Stats() {
  Central& central = TheCentral();
  std::lock_guard<std::mutex> lock(central.mu);
  TaskPoolStats stats;
  stats.chunk_bytes = central.chunk_bytes;
  stats.uncarved_bytes = central.uncarved_bytes;
  for (const std::vector<void*>& free : central.free) {
    stats.central_free_blocks += static_cast<int64_t>(free.size());
  }
  return stats;
}

}  // namespace internal
}  // namespace timingwheel
