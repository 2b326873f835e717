// Copyright 2026 The timingwheel Authors.
//
// thread_stats.h
// -----------------------------------------------------------------------------
//
// What the kernel says about this process's threads, read from
// /proc/self/task/<tid>/: their names, voluntary context switches (each
// time a thread blocked, so one per wait that actually slept) and CPU time.
// The wake-up benchmark cross-checks the timers' own wake-up counters with
// these.

#ifndef TIMINGWHEEL_BENCHMARKS_THREAD_STATS_H_
#define TIMINGWHEEL_BENCHMARKS_THREAD_STATS_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace timingwheel {
namespace bench {

// ListThreads()
//
// The ids of the process's threads now, sorted.
std::vector<pid_t> ListThreads();

// ThreadName()
//
// The thread's name (its comm), or "" when it has exited.
std::string ThreadName(pid_t tid);

// VoluntarySwitches()
//
// `voluntary_ctxt_switches` of the thread, or -1 when it has exited.
int64_t VoluntarySwitches(pid_t tid);

// CpuNanos()
//
// User plus system CPU time of the thread in nanoseconds (schedstat), or 0
// when it has exited.
int64_t CpuNanos(pid_t tid);

// NewThreads()
//
// The ids in `after` that are not in `before` (both sorted).
std::vector<pid_t> NewThreads(const std::vector<pid_t>& before,
                              const std::vector<pid_t>& after);

// FindThread()
//
// Waits up to one second for one of `tids` to be named `name` (threads name
// themselves once running) and returns it, or 0.
pid_t FindThread(const std::vector<pid_t>& tids, const std::string& name);

}  // namespace bench
}  // namespace timingwheel

#endif  // TIMINGWHEEL_BENCHMARKS_THREAD_STATS_H_
