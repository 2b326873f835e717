// Copyright 2026 The timingwheel Authors.
//
// Tests of the task pool (timer/internal/task_pool.h): reuse on one thread,
// remote frees handed back through the central list, a thread's cache given
// back at its exit, Reserve() adding only what is missing, sizes beyond the
// pool, and (under AddressSanitizer) free blocks poisoned. Each test uses
// its own size class, so that the tests do not see each other's blocks.

#include "timer/internal/task_pool.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

#include "absl/base/config.h"
#include "gtest/gtest.h"

#ifdef ABSL_HAVE_ADDRESS_SANITIZER
#include <sanitizer/asan_interface.h>
#endif

namespace timingwheel {
namespace internal {
namespace {

std::vector<void*> AllocateMany(size_t size, int count) {
  std::vector<void*> blocks;
  for (int i = 0; i < count; ++i) blocks.push_back(TaskPool::Allocate(size));
  return blocks;
}

void FreeAll(const std::vector<void*>& blocks, size_t size) {
  for (void* block : blocks) TaskPool::Free(block, size);
}

TEST(TaskPoolTest, ReusesTheLastFreedBlockOnTheSameThread) {
  void* first = TaskPool::Allocate(40);
  TaskPool::Free(first, 40);
  void* second = TaskPool::Allocate(40);
  EXPECT_EQ(second, first);
  TaskPool::Free(second, 40);
}

TEST(TaskPoolTest, BlocksAreAlignedDistinctAndWholeSized) {
  constexpr size_t kSize = 56;
  std::vector<void*> blocks = AllocateMany(kSize, 1000);
  for (size_t i = 0; i < blocks.size(); ++i) {
    EXPECT_EQ(reinterpret_cast<uintptr_t>(blocks[i]) % TaskPool::kAlignment,
              0u);
    std::memset(blocks[i], static_cast<int>(i & 0xff), kSize);
  }
  for (size_t i = 0; i < blocks.size(); ++i) {
    const unsigned char* bytes = static_cast<unsigned char*>(blocks[i]);
    for (size_t b = 0; b < kSize; ++b) {
      ASSERT_EQ(bytes[b], i & 0xff) << "block " << i << " overlaps another";
    }
  }
  std::vector<void*> sorted = blocks;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 1; i < sorted.size(); ++i) {
    EXPECT_GE(static_cast<char*>(sorted[i]) - static_cast<char*>(sorted[i - 1]),
              static_cast<std::ptrdiff_t>(kSize));
  }
  FreeAll(blocks, kSize);
}

TEST(TaskPoolTest, RemoteFreesAreReusedByOtherThreads) {
  constexpr size_t kSize = 64;
  constexpr int kCount = 5000;
  // A producer allocates; this thread (the "executor") frees them all.
  std::vector<void*> produced;
  std::thread producer([&] { produced = AllocateMany(kSize, kCount); });
  producer.join();
  const int64_t free_before = TaskPool::Stats().central_free_blocks;
  FreeAll(produced, kSize);
  // All but this thread's cache went back to the central list.
  EXPECT_GE(TaskPool::Stats().central_free_blocks - free_before, kCount - 128);
  // Another producer gets them back: no new memory.
  const int64_t chunks_before = TaskPool::Stats().chunk_bytes;
  std::vector<void*> reused;
  std::thread consumer([&] { reused = AllocateMany(kSize, kCount - 256); });
  consumer.join();
  EXPECT_EQ(TaskPool::Stats().chunk_bytes, chunks_before);
  const std::set<void*> freed(produced.begin(), produced.end());
  for (void* block : reused) EXPECT_EQ(freed.count(block), 1u);
  FreeAll(reused, kSize);
}

TEST(TaskPoolTest, AThreadGivesItsCacheBackWhenItExits) {
  constexpr size_t kSize = 72;
  std::vector<void*> cached;
  std::thread worker([&] {
    cached = AllocateMany(kSize, 10);
    FreeAll(cached, kSize);  // Into this thread's cache.
  });
  worker.join();
  // The exited thread's blocks are on the central list for the next taker.
  std::vector<void*> taken;
  std::thread next([&] { taken = AllocateMany(kSize, 64); });
  next.join();
  const std::set<void*> mine(taken.begin(), taken.end());
  for (void* block : cached) EXPECT_EQ(mine.count(block), 1u);
  FreeAll(taken, kSize);
}

TEST(TaskPoolTest, ReserveAddsOnlyWhatIsMissing) {
  constexpr size_t kSize = 80;
  constexpr size_t kCount = 100000;
  TaskPool::Reserve(kSize, kSize, kCount);
  const TaskPoolStats after_first = TaskPool::Stats();
  TaskPool::Reserve(kSize, kSize, kCount);
  TaskPool::Reserve(kSize / 2, kSize / 2,
                    kCount);  // Smaller blocks fit in it too.
  EXPECT_EQ(TaskPool::Stats().chunk_bytes, after_first.chunk_bytes);
  // Carving them from the reservation takes no new chunk.
  std::vector<void*> blocks = AllocateMany(kSize, kCount);
  EXPECT_EQ(TaskPool::Stats().chunk_bytes, after_first.chunk_bytes);
  FreeAll(blocks, kSize);
  // Freed, they are room again.
  TaskPool::Reserve(kSize, kSize, kCount - 128);
  EXPECT_EQ(TaskPool::Stats().chunk_bytes, after_first.chunk_bytes);
}

TEST(TaskPoolTest, SizesBeyondThePoolUseTheGlobalAllocator) {
  const int64_t chunks_before = TaskPool::Stats().chunk_bytes;
  void* big = TaskPool::Allocate(TaskPool::kMaxBlockSize + 1);
  std::memset(big, 1, TaskPool::kMaxBlockSize + 1);
  EXPECT_EQ(TaskPool::Stats().chunk_bytes, chunks_before);
  TaskPool::Free(big, TaskPool::kMaxBlockSize + 1);
}

#ifdef ABSL_HAVE_ADDRESS_SANITIZER
// Built with ASan only: a use after free of a pooled task is detectable.
TEST(TaskPoolTest, FreeBlocksArePoisonedUnderAddressSanitizer) {
  constexpr size_t kSize = 88;
  void* block = TaskPool::Allocate(kSize);
  EXPECT_FALSE(__asan_address_is_poisoned(block));
  TaskPool::Free(block, kSize);
  EXPECT_TRUE(__asan_address_is_poisoned(block));
  EXPECT_TRUE(
      __asan_address_is_poisoned(static_cast<char*>(block) + kSize - 1));
  void* again = TaskPool::Allocate(kSize);
  ASSERT_EQ(again, block);
  EXPECT_FALSE(__asan_address_is_poisoned(again));
  TaskPool::Free(again, kSize);
}

TEST(TaskPoolDeathTest, UseAfterFreeIsReportedUnderAddressSanitizer) {
  constexpr size_t kSize = 96;
  EXPECT_DEATH(
      {
        auto* block = static_cast<volatile char*>(TaskPool::Allocate(kSize));
        TaskPool::Free(const_cast<char*>(block), kSize);
        block[8] = 1;
      },
      "use-after-poison");
}
#endif  // ABSL_HAVE_ADDRESS_SANITIZER

}  // namespace
}  // namespace internal
}  // namespace timingwheel
