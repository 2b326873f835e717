// Copyright 2026 The timingwheel Authors.

#include "tests/durable/twctl_runner.h"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace timingwheel {
namespace durable_test {
namespace {

std::string TwctlPath() {
  if (const char* path = std::getenv("TWCTL")) return path;
  const char* srcdir = std::getenv("TEST_SRCDIR");
  return absl::StrCat(srcdir != nullptr ? srcdir : ".",
                      "/timingwheel/tools/twctl/twctl");
}

}  // namespace

Ran Twctl(const std::vector<std::string>& args, const std::string& db_env) {
  int out_pipe[2], err_pipe[2];
  Ran run;
  if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0) return run;
  const std::string path = TwctlPath();
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    close(out_pipe[0]);
    close(err_pipe[0]);
    if (db_env.empty()) {
      unsetenv("TIMINGWHEEL_DB");
    } else {
      setenv("TIMINGWHEEL_DB", db_env.c_str(), 1);
    }
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(path.c_str()));
    for (const std::string& a : args)
      argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(path.c_str(), argv.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&run.out, &run.err};
  int open_fds = 2;
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  while (open_fds > 0 && absl::Now() < deadline) {
    if (poll(fds, 2, 1000) <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buf[4096];
      ssize_t n = read(fds[i].fd, buf, sizeof(buf));
      if (n <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      } else {
        sinks[i]->append(buf, n);
      }
    }
  }
  int status = 0;
  waitpid(pid, &status, 0);
  run.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

std::string Describe(const Ran& run) {
  return absl::StrCat("exit ", run.code, "\nstdout:\n", run.out, "\nstderr:\n",
                      run.err);
}

}  // namespace durable_test
}  // namespace timingwheel
