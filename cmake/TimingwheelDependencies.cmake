# The libraries timingwheel builds on, found the way Debian installs them
# (docs/adopting.md lists the packages of other systems):
#   Abseil        find_package(absl)           libabsl-dev
#   libpq         pkg-config libpq, else FindPostgreSQL   libpq-dev
#   cpp-httplib   find_package(httplib), else pkg-config cpp-httplib
#                 (libcpp-httplib-dev ships only the .pc file)
#   GoogleTest    find_package(GTest)          libgtest-dev, libgmock-dev (tests)
#   Benchmark     find_package(benchmark)      libbenchmark-dev (benchmarks)
#   Boost.Asio    find_package(Boost)          libboost-dev (benchmarks)
# Each found library is wrapped in a timingwheel_<name> interface target, so
# the exported targets name one target whichever way it was found;
# timingwheelConfig.cmake repeats the same search (TimingwheelFindLibpq.cmake).

include_guard(GLOBAL)
include(CMakeFindDependencyMacro)

find_package(absl REQUIRED)
find_package(Threads REQUIRED)

if(TIMINGWHEEL_BUILD_DURABLE)
  include(TimingwheelFindLibpq)
endif()

if(TIMINGWHEEL_BUILD_TWCTL OR TIMINGWHEEL_BUILD_DURABLE)
  include(TimingwheelFindHttplib)
endif()

if(TIMINGWHEEL_BUILD_TESTS)
  find_package(GTest REQUIRED)
  if(NOT TARGET GTest::gmock)
    message(FATAL_ERROR "GoogleTest's gmock not found (Debian: apt-get install libgmock-dev)")
  endif()
endif()
if(TIMINGWHEEL_BUILD_BENCHMARKS)
  find_package(benchmark REQUIRED)
  find_package(Boost REQUIRED)
endif()
