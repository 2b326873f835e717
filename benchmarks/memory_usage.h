// Copyright 2026 The timingwheel Authors.
//
// memory_usage.h
// -----------------------------------------------------------------------------
//
// How much memory the process holds, for the per-timer memory counters:
// bytes malloc has handed out (glibc's mallinfo2: in-use arena bytes plus
// mmapped blocks, so chunk headers and rounding count, free lists do not)
// and the resident set size.

#ifndef TIMINGWHEEL_BENCHMARKS_MEMORY_USAGE_H_
#define TIMINGWHEEL_BENCHMARKS_MEMORY_USAGE_H_

#include <cstdint>

namespace timingwheel {
namespace bench {

// MallocInUseBytes()
//
// Bytes currently allocated through malloc, chunk overhead included.
int64_t MallocInUseBytes();

// ResidentBytes()
//
// The process's resident set size.
int64_t ResidentBytes();

}  // namespace bench
}  // namespace timingwheel

#endif  // TIMINGWHEEL_BENCHMARKS_MEMORY_USAGE_H_
