// Copyright 2026 The timingwheel Authors.
//
// Runs the twctl binary (//tools/twctl; $TWCTL, or from the runfiles) as a
// subprocess, for the end-to-end tests of its commands: its exit code,
// stdout and stderr, within a bounded wait.

#ifndef TIMINGWHEEL_TESTS_DURABLE_TWCTL_RUNNER_H_
#define TIMINGWHEEL_TESTS_DURABLE_TWCTL_RUNNER_H_

#include <string>
#include <vector>

namespace timingwheel {
namespace durable_test {

struct Ran {
  int code = -1;  // -1: killed, or not run.
  std::string out;
  std::string err;
};

// Runs twctl with `args`, and `db_env` as TIMINGWHEEL_DB when not empty
// (unset otherwise); returns its exit code, stdout and stderr. Reads its
// output for at most 60 s.
Ran Twctl(const std::vector<std::string>& args, const std::string& db_env = "");

// The exit code, stdout and stderr, for a failure message.
std::string Describe(const Ran& run);

}  // namespace durable_test
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TESTS_DURABLE_TWCTL_RUNNER_H_
