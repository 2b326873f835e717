// Copyright 2026 The timingwheel Authors.
//
// pool_executor.h
// -----------------------------------------------------------------------------
//
// `testing::PoolExecutor` is the public `ThreadPoolExecutor`
// (timer/thread_pool_executor.h) under the name the project's tests use.

#ifndef TIMINGWHEEL_TIMER_TESTING_POOL_EXECUTOR_H_
#define TIMINGWHEEL_TIMER_TESTING_POOL_EXECUTOR_H_

#include "timer/thread_pool_executor.h"

namespace timingwheel {
namespace testing {

using PoolExecutor = ::timingwheel::ThreadPoolExecutor;

}  // namespace testing
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TIMER_TESTING_POOL_EXECUTOR_H_
