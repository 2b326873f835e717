// Copyright 2026 The timingwheel Authors.

#include "timer/internal/report_error.h"

#include <cstdio>
#include <mutex>
#include <set>
#include <string>
#include <typeindex>
#include <typeinfo>
#include <utility>

namespace timingwheel {
namespace internal {

void ReportUnhandledError(std::exception_ptr error, const char* source,
                          const char* hook) {
  std::string what = "an exception not derived from std::exception";
  std::type_index type = typeid(void);
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    what = e.what();
    type = typeid(e);
  } catch (...) {
  }
  static std::mutex mu;
  // Never destroyed: callbacks may throw while the process exits.
  static auto* seen = new std::set<std::pair<std::type_index, std::string>>();
  {
    std::lock_guard<std::mutex> lock(mu);
    if (!seen->emplace(type, source).second) return;
  }
  std::fprintf(stderr,
               "timingwheel: %s threw (%s: %s); set %s to handle it (this "
               "type is reported once)\n",
               source, type.name(), what.c_str(), hook);
  std::fflush(stderr);
}

}  // namespace internal
}  // namespace timingwheel
