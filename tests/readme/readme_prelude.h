// Copyright 2026 The timingwheel Authors.
//
// readme_prelude.h
// -----------------------------------------------------------------------------
//
// The application names the examples of the README and of docs/ take for
// granted (a connection, a partition, a response), so that every ```cpp
// block of them compiles as written (see extract_examples.awk). The
// examples see them through `using namespace readme_prelude`.

#ifndef TIMINGWHEEL_TESTS_README_README_PRELUDE_H_
#define TIMINGWHEEL_TESTS_README_README_PRELUDE_H_

#include <atomic>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace readme_prelude {

// A client connection that an idle timeout closes.
struct Connection {
  void Close() { closed = true; }
  std::atomic<bool> closed{false};
};

inline void SendHeartbeat() {}
inline void Poll() {}
inline void ReturnBufferToPool() {}

// A partition whose replicas acknowledge produce requests.
struct Partition {
  int acks() const { return acks_.load(); }
  std::atomic<int> acks_{0};
};

enum Response { kOk, kTimeout };
inline void Respond(Response) {}

// A metric.
struct Counter {
  void Increment() { ++value; }
  std::atomic<long> value{0};
};
inline Counter timeouts;

inline absl::Status ExpireOrder(absl::string_view /*id*/,
                                absl::string_view /*payload*/) {
  return absl::OkStatus();
}

}  // namespace readme_prelude

#endif  // TIMINGWHEEL_TESTS_README_README_PRELUDE_H_
