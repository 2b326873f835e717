// Copyright 2026 The timingwheel Authors.

#include "benchmarks/thread_stats.h"

#include <dirent.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

namespace timingwheel {
namespace bench {
namespace {

std::string TaskPath(pid_t tid, const char* file) {
  return "/proc/self/task/" + std::to_string(tid) + "/" + file;
}

}  // namespace

std::vector<pid_t> ListThreads() {
  std::vector<pid_t> tids;
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return tids;
  while (dirent* entry = readdir(dir)) {
    if (entry->d_name[0] == '.') continue;
    tids.push_back(static_cast<pid_t>(std::atoi(entry->d_name)));
  }
  closedir(dir);
  std::sort(tids.begin(), tids.end());
  return tids;
}

std::string ThreadName(pid_t tid) {
  std::ifstream in(TaskPath(tid, "comm"));
  std::string name;
  std::getline(in, name);
  return name;
}

int64_t VoluntarySwitches(pid_t tid) {
  std::ifstream in(TaskPath(tid, "status"));
  std::string line;
  const std::string key = "voluntary_ctxt_switches:";
  while (std::getline(in, line)) {
    if (line.compare(0, key.size(), key) == 0) {
      return std::strtoll(line.c_str() + key.size(), nullptr, 10);
    }
  }
  return -1;
}

int64_t CpuNanos(pid_t tid) {
  std::ifstream in(TaskPath(tid, "schedstat"));
  int64_t nanos = 0;
  in >> nanos;  // First field: time spent on the CPU, in nanoseconds.
  return nanos;
}

std::vector<pid_t> NewThreads(const std::vector<pid_t>& before,
                              const std::vector<pid_t>& after) {
  std::vector<pid_t> added;
  std::set_difference(after.begin(), after.end(), before.begin(), before.end(),
                      std::back_inserter(added));
  return added;
}

pid_t FindThread(const std::vector<pid_t>& tids, const std::string& name) {
  for (int attempt = 0; attempt < 1000; ++attempt) {
    for (pid_t tid : tids) {
      if (ThreadName(tid) == name) return tid;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return 0;
}

}  // namespace bench
}  // namespace timingwheel
