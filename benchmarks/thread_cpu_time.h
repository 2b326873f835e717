// Copyright 2026 The timingwheel Authors.
//
// thread_cpu_time.h
// -----------------------------------------------------------------------------
//
// `ThreadCpuSeconds()`: the calling thread's CPU time, for the micro
// benchmarks that time a section by hand (manual time): on a loaded machine
// their wall time includes preemption, their thread's CPU time does not, so
// they report both (counters `ns_per_...` and `cpu_ns_per_...`).

#ifndef TIMINGWHEEL_BENCHMARKS_THREAD_CPU_TIME_H_
#define TIMINGWHEEL_BENCHMARKS_THREAD_CPU_TIME_H_

#include <time.h>

namespace timingwheel {
namespace bench {

// ThreadCpuSeconds()
//
// Returns the calling thread's CPU time in seconds (CLOCK_THREAD_CPUTIME_ID).
inline double ThreadCpuSeconds() {
  timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * now.tv_nsec;
}

}  // namespace bench
}  // namespace timingwheel

#endif  // TIMINGWHEEL_BENCHMARKS_THREAD_CPU_TIME_H_
