// Copyright 2026 The timingwheel Authors.
//
// require_cxx17.h
// -----------------------------------------------------------------------------
//
// Every public header of timingwheel includes this one first: compiled below
// C++17, the build stops here with one line saying so, instead of a wall of
// template errors from the headers that follow. (MSVC reports
// `__cplusplus` correctly only with `/Zc:__cplusplus`.)

#ifndef TIMINGWHEEL_TIMER_INTERNAL_REQUIRE_CXX17_H_
#define TIMINGWHEEL_TIMER_INTERNAL_REQUIRE_CXX17_H_

// clang-format off
#if __cplusplus < 201703L
#error "timingwheel needs C++17: compile with -std=c++17 (Bazel: build --cxxopt=-std=c++17 --host_cxxopt=-std=c++17 in .bazelrc)"
// A missing include is fatal in GCC and Clang: compilation ends here, so
// the line above is the only one the user has to read.
#include "timingwheel_stops_here_see_the_cxx17_error_above"  // IWYU pragma: keep
#endif
// clang-format on

#endif  // TIMINGWHEEL_TIMER_INTERNAL_REQUIRE_CXX17_H_
