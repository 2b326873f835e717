// Copyright 2026 The timingwheel Authors.

#include "durable/testing/fault_points.h"

#include <signal.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "durable/engine/fault_point.h"

namespace timingwheel {
namespace durable_testing {
namespace {

constexpr const char* kPoints[] = {
    "load.claimed",         "fire.before",        "fire.started",
    "attempt.before_start", "handler.returned",   "reconnect.before_requeue",
    "shutdown.waiting",     "schedule.completing"};

// Written once by InstallFault() before the hook is installed (release),
// read by the hook after loading it (acquire).
char g_point[32];
int g_signal = 0;
std::atomic<bool> g_fired{false};

void Hook(const char* point) {
  if (std::strcmp(point, g_point) != 0) return;
  if (g_fired.exchange(true)) return;
  std::fprintf(stderr, "fault: %s at %s\n",
               g_signal == SIGKILL ? "kill" : "stop", point);
  std::fflush(stderr);
  raise(g_signal);
}

}  // namespace

absl::Status InstallFault(absl::string_view spec) {
  const size_t colon = spec.find(':');
  if (colon == absl::string_view::npos) {
    return absl::InvalidArgumentError("fault spec is ACTION:POINT");
  }
  absl::string_view action = spec.substr(0, colon);
  absl::string_view point = spec.substr(colon + 1);
  int signal;
  if (action == "kill") {
    signal = SIGKILL;
  } else if (action == "stop") {
    signal = SIGSTOP;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("fault action is kill or stop, not ", action));
  }
  bool known = false;
  for (const char* p : kPoints) known = known || point == p;
  if (!known) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown fault point ", point));
  }
  std::memcpy(g_point, point.data(), point.size());
  g_point[point.size()] = '\0';
  g_signal = signal;
  durable_internal::FaultHookSlot().store(&Hook, std::memory_order_release);
  return absl::OkStatus();
}

}  // namespace durable_testing
}  // namespace timingwheel
