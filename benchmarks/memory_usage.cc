// Copyright 2026 The timingwheel Authors.

#include "benchmarks/memory_usage.h"

#include <malloc.h>
#include <unistd.h>

#include <fstream>

namespace timingwheel {
namespace bench {

int64_t MallocInUseBytes() {
  const struct mallinfo2 info = mallinfo2();
  return static_cast<int64_t>(info.uordblks + info.hblkhd);
}

int64_t ResidentBytes() {
  std::ifstream in("/proc/self/statm");
  int64_t size = 0, resident = 0;
  in >> size >> resident;
  return resident * static_cast<int64_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace bench
}  // namespace timingwheel
