// Copyright 2026 The timingwheel Authors.
//
// durable_perf_util.h
// -----------------------------------------------------------------------------
//
// What the parts of durable_perf (benchmarks/durable_perf.cc) share: the
// handler-call recorder, medians, the load average printed beside each
// figure, and the die-on-error helpers of a benchmark (a failed step ends
// the run with its status; no figure is printed from a broken run).

#ifndef TIMINGWHEEL_BENCHMARKS_DURABLE_PERF_UTIL_H_
#define TIMINGWHEEL_BENCHMARKS_DURABLE_PERF_UTIL_H_

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "durable/admin_store.h"
#include "libpq-fe.h"

namespace timingwheel {
namespace bench {

inline constexpr int kBatch = 1000;  // Requests per ScheduleBatch().
extern const std::string kPayload;   // 32 bytes.

// The median of `v` (0 when empty).
double Median(std::vector<double> v);

// Handler calls of one phase: lateness and first/last call. Thread-safe.
class Recorder {
 public:
  void Reset();
  void Record(absl::Time due);
  size_t Count();
  // Waits until `n` calls were recorded (false after `timeout`).
  bool WaitFor(size_t n, absl::Duration timeout);
  // Calls per second from the first call to `end`.
  double RateUntil(absl::Time end);
  void Lateness(double* mean, double* p99, double* max);

 private:
  std::mutex mu_;
  std::vector<double> lateness_;
  absl::Time first_, last_;
};

// Metric name -> value of one run, per implementation.
using Sample = std::map<std::string, double>;

// The 1-, 5- and 15-minute load averages, to print beside each figure.
std::string LoadAverage();

// Prints `status` and exits 1.
[[noreturn]] void Die(const absl::Status& status);
template <typename T>
T Must(absl::StatusOr<T> v) {
  if (!v.ok()) Die(v.status());
  return *std::move(v);
}
void Must(const absl::Status& s);

// The one integer `sql` returns.
int64_t Int(PGconn* conn, const std::string& sql);

// Server-side transaction count of database `name` (one per statement).
int64_t Xacts(PGconn* admin, const std::string& name);

// The statistics counter `column` (n_tup_upd, n_tup_hot_upd) of `table`
// in pg_stat_user_tables, as the server last flushed it.
int64_t Updates(PGconn* conn, const std::string& table,
                const std::string& column);

// Polls `count_sql` until it reaches `n`; returns when (dies after 120 s).
absl::Time WaitDone(PGconn* conn, const std::string& count_sql, int64_t n);

// Polls `count()` until it reaches `n`; returns when (dies after 120 s).
absl::Time WaitUntilCount(const std::function<int64_t()>& count, int64_t n);

// Our store's status (task counts, storage, update counts) through the
// operators' API, on a connection of its own closed before returning.
StoreStatus OursStatus(const std::string& conninfo);

// The slots `node` holds under a valid lease, and whether `node` is live
// (registered), in `status`.
int64_t SlotsHeldBy(const StoreStatus& status, const std::string& node);
bool HasNode(const StoreStatus& status, const std::string& node);

// Takeover after kill -9 (benchmarks/durable_perf_takeover.cc), both
// implementations at once, in forked processes (call it while the process
// has one thread). Returns seconds: {ours, poller}; -1 for one that did
// not finish.
std::pair<double, double> MeasureTakeover(const std::string& admin,
                                          absl::Duration ttl,
                                          absl::Duration interval);

}  // namespace bench
}  // namespace timingwheel

#endif  // TIMINGWHEEL_BENCHMARKS_DURABLE_PERF_UTIL_H_
