// Copyright 2026 The timingwheel Authors.

#include "timer/internal/report_error.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>
#include <typeindex>
#include <typeinfo>
#include <utility>

#if __has_include(<cxxabi.h>)
#include <cxxabi.h>
#define TIMINGWHEEL_HAVE_CXXABI 1
#endif

namespace timingwheel {
namespace internal {
namespace {

// The readable form of the type name `mangled` ("std::runtime_error", not
// "St13runtime_error") where the C++ ABI can demangle it.
std::string TypeName(const char* mangled) {
#ifdef TIMINGWHEEL_HAVE_CXXABI
  int status = 0;
  char* demangled = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  if (status == 0 && demangled != nullptr) {
    std::string name = demangled;
    std::free(demangled);
    return name;
  }
#endif
  return mangled;
}

}  // namespace

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
#ifdef TIMINGWHEEL_HAVE_CXXABI
    // The thrown type itself (an int, a string...), so that distinct types
    // are reported once each, not once for all of them.
    if (const std::type_info* thrown = abi::__cxa_current_exception_type()) {
      type = *thrown;
    }
#endif
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
               source, TypeName(type.name()).c_str(), what.c_str(), hook);
  std::fflush(stderr);
}

}  // namespace internal
}  // namespace timingwheel
