// Copyright 2026 The timingwheel Authors.
//
// The shared parts of durable_perf; see durable_perf_util.h.

#include "benchmarks/durable_perf_util.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "benchmarks/pg_bench_util.h"

namespace timingwheel {
namespace bench {

const std::string kPayload(32, 'p');

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void Recorder::Reset() {
  std::lock_guard<std::mutex> lock(mu_);
  lateness_.clear();
  first_ = absl::InfiniteFuture();
  last_ = absl::InfinitePast();
}

void Recorder::Record(absl::Time due) {
  absl::Time now = absl::Now();
  std::lock_guard<std::mutex> lock(mu_);
  lateness_.push_back(absl::ToDoubleMilliseconds(now - due));
  first_ = std::min(first_, now);
  last_ = std::max(last_, now);
}

size_t Recorder::Count() {
  std::lock_guard<std::mutex> lock(mu_);
  return lateness_.size();
}

bool Recorder::WaitFor(size_t n, absl::Duration timeout) {
  absl::Time deadline = absl::Now() + timeout;
  while (Count() < n) {
    if (absl::Now() > deadline) return false;
    absl::SleepFor(absl::Milliseconds(5));
  }
  return true;
}

double Recorder::RateUntil(absl::Time end) {
  std::lock_guard<std::mutex> lock(mu_);
  double s = absl::ToDoubleSeconds(end - first_);
  return lateness_.size() / std::max(s, 1e-6);
}

void Recorder::Lateness(double* mean, double* p99, double* max) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<double> v = lateness_;
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  *mean = v.empty() ? 0 : sum / v.size();
  *p99 = v.empty() ? 0 : v[static_cast<size_t>(0.99 * (v.size() - 1))];
  *max = v.empty() ? 0 : v.back();
}

// The 1-, 5- and 15-minute load averages, to print beside each figure.
std::string LoadAverage() {
  double load[3] = {-1, -1, -1};
  if (getloadavg(load, 3) != 3) return "unknown";
  return absl::StrFormat("%.2f %.2f %.2f", load[0], load[1], load[2]);
}

[[noreturn]] void Die(const absl::Status& status) {
  std::fprintf(stderr, "durable_perf: %s\n", status.ToString().c_str());
  std::exit(1);
}
void Must(const absl::Status& s) {
  if (!s.ok()) Die(s);
}

int64_t Int(PGconn* conn, const std::string& sql) {
  return Must(PgQueryInt(conn, sql));
}

// Server-side transaction count of database `name` (one per statement).
int64_t Xacts(PGconn* admin, const std::string& name) {
  return Int(admin, absl::StrCat("SELECT xact_commit + xact_rollback FROM "
                                 "pg_stat_database WHERE datname = '",
                                 name, "'"));
}

int64_t Updates(PGconn* conn, const std::string& table,
                const std::string& column) {
  return Int(conn, absl::StrCat("SELECT coalesce(", column,
                                ", 0) FROM pg_stat_user_tables WHERE relname "
                                "= '",
                                table, "'"));
}

// Polls `count_sql` until it reaches `n`; returns when (dies after 120 s).
absl::Time WaitDone(PGconn* conn, const std::string& count_sql, int64_t n) {
  const absl::Time deadline = absl::Now() + absl::Seconds(120);
  while (Int(conn, count_sql) < n) {
    if (absl::Now() > deadline) Die(absl::DeadlineExceededError(count_sql));
    absl::SleepFor(absl::Milliseconds(2));
  }
  return absl::Now();
}

absl::Time WaitUntilCount(const std::function<int64_t()>& count, int64_t n) {
  const absl::Time deadline = absl::Now() + absl::Seconds(120);
  while (count() < n) {
    if (absl::Now() > deadline) {
      Die(absl::DeadlineExceededError(absl::StrCat("count below ", n)));
    }
    absl::SleepFor(absl::Milliseconds(2));
  }
  return absl::Now();
}

StoreStatus OursStatus(const std::string& conninfo) {
  std::unique_ptr<AdminStore> admin = Must(AdminStore::Connect(conninfo));
  return Must(admin->Status());
}

int64_t SlotsHeldBy(const StoreStatus& status, const std::string& node) {
  int64_t held = 0;
  for (const AdminSlot& slot : status.slots) {
    if (slot.lease_valid && slot.owner == node) ++held;
  }
  return held;
}

bool HasNode(const StoreStatus& status, const std::string& node) {
  for (const AdminNode& n : status.nodes) {
    if (n.node_id == node) return true;
  }
  return false;
}

}  // namespace bench
}  // namespace timingwheel
