// Copyright 2026 The timingwheel Authors.
//
// A simulation of the planned durable core (docs/durable-core-plan.md) past
// what one test database holds: 10^8 stored timers, 10^7 of them within
// the horizon, 10 processes over 1024 slots, one process killed. It prints
// the memory per process, the rows read per takeover and the lateness of
// the tasks due meanwhile, beside what today's core does at the same scale.
//
// What is real and what is modelled:
//   * Each process is the real wheel (`MockTimer`: `Timer` on a manual
//     clock) holding one task per owned slot, armed at the slot's next due
//     time, as the plan has it. Its memory is measured (malloc'd bytes).
//   * The store is modelled as each slot's due times in order (what both
//     cores read through the `(slot, due_us)` index), not the fake store
//     (`FakeDatabase` keeps whole rows in a std::map: about 20 GB at 10^8).
//   * Statement costs are parameters, measured by benchmarks/sql/next_core.sh
//     at 10^6 rows: a fire of 1,000 rows 16.3 ms, a slot's next due time
//     14 us, today's claim 5.4 us per row. Each process runs its statements
//     one after another on one connection.
//   * Leases: renewed every TTL/3; a killed process's slots are free a TTL
//     after its last renewal; each survivor takes its share at its next
//     lease round.
//   * Today's core is computed, not run: its takeover claims every row of
//     the taken slots within the horizon (one write each, due-first in
//     chunks of 20,000), and its wheel holds one 131-byte task per row
//     (BENCHMARKS.md, measured at 10^6).

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/time/time.h"
#include "benchmarks/memory_usage.h"
#include "timer/testing/mock_timer.h"

ABSL_FLAG(int64_t, stored, 100000000, "timers stored, due evenly over --span");
ABSL_FLAG(absl::Duration, span, absl::Hours(24 * 30), "due times spread");
ABSL_FLAG(absl::Duration, horizon, absl::Hours(72),
          "today's horizon: what its wheels hold (the hot timers)");
ABSL_FLAG(int, processes, 10, "scheduler processes");
ABSL_FLAG(int, slots, 1024, "slots");
ABSL_FLAG(absl::Duration, ttl, absl::Seconds(10), "lease TTL");
ABSL_FLAG(absl::Duration, kill_at, absl::Seconds(20), "when one is killed");
ABSL_FLAG(absl::Duration, run_for, absl::Seconds(60), "simulated time");
ABSL_FLAG(double, fire_us_per_row, 16.3, "planned fire, per row");
ABSL_FLAG(double, fire_us_fixed, 500, "planned fire, per statement");
ABSL_FLAG(double, probe_us, 14, "planned load, per slot");
ABSL_FLAG(double, claim_us_per_row, 5.4, "today's load, per row claimed");
ABSL_FLAG(double, mirror_bytes, 131, "today's wheel, bytes per hot timer");

namespace timingwheel {
namespace {

constexpr int64_t kMicros = 1000;  // Nanoseconds per microsecond.
// Today's load claims at most this many rows per statement
// (durable/scheduler_shared.h).
constexpr int64_t kMaxLoad = 20000;

// The store: each slot's due times (ns from the start), in order.
using SlotRows = std::vector<std::vector<int64_t>>;

SlotRows MakeStore(int64_t stored, int slots, int64_t span_ns) {
  SlotRows rows(slots);
  std::mt19937_64 random(42);
  std::uniform_int_distribution<int64_t> due(1, span_ns);
  for (auto& r : rows) r.reserve(stored / slots + stored / slots / 10 + 16);
  for (int64_t i = 0; i < stored; ++i) {
    rows[random() % slots].push_back(due(random));
  }
  for (auto& r : rows) std::sort(r.begin(), r.end());
  return rows;
}

struct Lateness {
  std::vector<int64_t> after_due_ns;   // Fire end - due.
  std::vector<int64_t> after_take_ns;  // Fire end - when the slot was taken.
};

// One scheduler process of the planned core.
class Process {
 public:
  // `fired_upto` (by slot: the first row not yet fired) is shared by every
  // process: a slot's new owner starts where its former owner stopped.
  Process(const SlotRows* rows, std::vector<int64_t>* fired_upto,
          int64_t* now_ns)
      : rows_(rows), fired_upto_(fired_upto), now_(now_ns) {}

  void Take(int slot, int64_t taken_ns) {
    if (cursor_.size() <= static_cast<size_t>(slot)) {
      cursor_.resize(slot + 1, -1);
      taken_ns_.resize(slot + 1, 0);
    }
    // The next due time: the first row after what the slot's former owner
    // fired (the rows it fired are RUNNING or finished, not waiting).
    cursor_[slot] = (*fired_upto_)[slot];
    taken_ns_[slot] = taken_ns;
    Arm(slot);
  }

  void Read(int slots) {
    rows_read_ += slots;
    Busy(static_cast<int64_t>(slots * absl::GetFlag(FLAGS_probe_us) * kMicros));
  }

  size_t Advance(absl::Duration d) { return mock_.AdvanceBy(d); }
  int64_t rows_read() const { return rows_read_; }
  int64_t rows_fired() const { return rows_fired_; }
  int64_t statements() const { return statements_; }
  Lateness& lateness() { return lateness_; }
  // Rows due from `from_ns` until their slot was taken by this process are
  // the tasks due meanwhile (their lateness is recorded).
  void set_meanwhile_from(int64_t from_ns) { meanwhile_from_ = from_ns; }

 private:
  void Busy(int64_t cost_ns) {
    busy_until_ = std::max(busy_until_, *now_) + cost_ns;
  }

  void Arm(int slot) {
    const auto& r = (*rows_)[slot];
    if (cursor_[slot] >= static_cast<int64_t>(r.size())) return;
    const int64_t delay = std::max<int64_t>(0, r[cursor_[slot]] - *now_);
    (void)mock_.timer().Schedule(absl::Nanoseconds(delay),
                                 [this, slot] { Fire(slot); });
  }

  void Fire(int slot) {
    const auto& r = (*rows_)[slot];
    int64_t& c = cursor_[slot];
    int64_t n = 0;
    while (c + n < static_cast<int64_t>(r.size()) && r[c + n] <= *now_) ++n;
    ++statements_;
    rows_read_ += n + 1;  // The due rows and the next due time.
    Busy(static_cast<int64_t>((absl::GetFlag(FLAGS_fire_us_fixed) +
                               n * absl::GetFlag(FLAGS_fire_us_per_row)) *
                              kMicros));
    for (int64_t i = c; i < c + n; ++i) {
      if (taken_ns_[slot] > 0 && r[i] >= meanwhile_from_ &&
          r[i] < taken_ns_[slot]) {
        lateness_.after_due_ns.push_back(busy_until_ - r[i]);
        lateness_.after_take_ns.push_back(busy_until_ - taken_ns_[slot]);
      }
    }
    c += n;
    (*fired_upto_)[slot] = c;
    rows_fired_ += n;
    Arm(slot);
  }

  const SlotRows* rows_;
  std::vector<int64_t>* fired_upto_;
  int64_t* now_;
  testing::MockTimer mock_;
  std::vector<int64_t> cursor_;    // By slot: the first waiting row.
  std::vector<int64_t> taken_ns_;  // By slot: when this process took it.
  int64_t busy_until_ = 0;
  int64_t rows_read_ = 0;
  int64_t rows_fired_ = 0;
  int64_t statements_ = 0;
  int64_t meanwhile_from_ = INT64_MAX;
  Lateness lateness_;
};

double Quantile(std::vector<int64_t> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * v.size()))] / 1e6;
}

int Main() {
  const int64_t stored = absl::GetFlag(FLAGS_stored);
  const int slots = absl::GetFlag(FLAGS_slots);
  const int procs = absl::GetFlag(FLAGS_processes);
  const int64_t ttl = absl::ToInt64Nanoseconds(absl::GetFlag(FLAGS_ttl));
  const int64_t kill_at =
      absl::ToInt64Nanoseconds(absl::GetFlag(FLAGS_kill_at));
  const int64_t end = absl::ToInt64Nanoseconds(absl::GetFlag(FLAGS_run_for));
  const int64_t horizon =
      absl::ToInt64Nanoseconds(absl::GetFlag(FLAGS_horizon));
  const SlotRows rows = MakeStore(
      stored, slots, absl::ToInt64Nanoseconds(absl::GetFlag(FLAGS_span)));
  int64_t hot = 0;
  for (const auto& r : rows) {
    hot += std::lower_bound(r.begin(), r.end(), horizon) - r.begin();
  }

  int64_t now = 0;
  std::vector<int64_t> fired_upto(slots, 0);
  const int victim = procs > 1 ? 3 % procs : -1;
  std::vector<std::unique_ptr<Process>> p;
  std::vector<int> owner(slots);
  const int64_t before = bench::MallocInUseBytes();
  for (int i = 0; i < procs; ++i) {
    p.push_back(std::make_unique<Process>(&rows, &fired_upto, &now));
  }
  for (int s = 0; s < slots; ++s) {
    owner[s] = s % procs;
    p[owner[s]]->Take(s, 0);
  }
  const int64_t per_process_bytes =
      (bench::MallocInUseBytes() - before) / procs;

  // Renewals every TTL/3 at each process's own phase (whole steps); the
  // victim's last one before the kill sets when its slots come free.
  const int64_t step = absl::ToInt64Nanoseconds(absl::Milliseconds(1));
  const int64_t round = ttl / 3 / step * step;
  auto phase = [&](int i) { return round * i / procs / step * step; };
  const int64_t last_renewal =
      victim < 0 ? 0 : kill_at - (kill_at - phase(victim)) % round;
  const int64_t free_at = last_renewal + ttl;
  std::vector<int> orphaned;
  for (int s = 0; s < slots; ++s) {
    if (owner[s] == victim) orphaned.push_back(s);
  }
  const size_t orphans = orphaned.size();
  const int share =
      procs > 1 ? static_cast<int>((orphans + procs - 2) / (procs - 1)) : 0;
  for (auto& q : p) q->set_meanwhile_from(kill_at);
  int64_t taken_last = 0;
  int64_t today_rows_claimed = 0;
  int64_t today_largest_take = 0;  // Rows one survivor's takeover claims.
  while (now < end) {
    now += step;
    for (int i = 0; i < procs; ++i) {
      if (i == victim && now >= kill_at) continue;
      // A lease round: take a share of the free slots.
      if (i != victim && now >= free_at && (now - phase(i)) % round == 0 &&
          !orphaned.empty()) {
        std::vector<int> mine;
        while (!orphaned.empty() && static_cast<int>(mine.size()) < share) {
          mine.push_back(orphaned.back());
          orphaned.pop_back();
        }
        p[i]->Read(static_cast<int>(mine.size()));
        int64_t claimed = 0;
        for (int s : mine) {
          p[i]->Take(s, now);
          const auto& r = rows[s];
          claimed += std::lower_bound(r.begin(), r.end(), now + horizon) -
                     (r.begin() + fired_upto[s]);
        }
        today_rows_claimed += claimed;
        today_largest_take = std::max(today_largest_take, claimed);
        taken_last = now;
      }
      p[i]->Advance(absl::Nanoseconds(step));
    }
  }

  Lateness all;
  int64_t read = 0, fired = 0, statements = 0;
  for (auto& q : p) {
    auto& l = q->lateness();
    all.after_due_ns.insert(all.after_due_ns.end(), l.after_due_ns.begin(),
                            l.after_due_ns.end());
    all.after_take_ns.insert(all.after_take_ns.end(), l.after_take_ns.begin(),
                             l.after_take_ns.end());
    read += q->rows_read();
    fired += q->rows_fired();
    statements += q->statements();
  }
  const double claim_s =
      today_rows_claimed * absl::GetFlag(FLAGS_claim_us_per_row) / 1e6;
  std::printf(
      "stored %" PRId64 ", hot (due within %s) %" PRId64
      ", %d processes, %d slots, TTL %s; process %d killed at %s, its %zu "
      "slots free at %.2f s, all taken by %.2f s\n",
      stored, absl::FormatDuration(absl::GetFlag(FLAGS_horizon)).c_str(), hot,
      procs, slots, absl::FormatDuration(absl::GetFlag(FLAGS_ttl)).c_str(),
      victim, absl::FormatDuration(absl::GetFlag(FLAGS_kill_at)).c_str(),
      orphans, free_at / 1e9, taken_last / 1e9);
  std::printf(
      "planned core: %" PRId64
      " bytes per process (%.4f per hot timer); "
      "%" PRId64 " fire statements, %" PRId64 " rows fired, %" PRId64
      " rows read in all; the takeover read %zu slots' next due times\n",
      per_process_bytes,
      hot > 0 ? static_cast<double>(per_process_bytes) * procs / hot : 0.0,
      statements, fired, read, orphans);
  std::printf(
      "planned core: %zu tasks due meanwhile, late after their due time "
      "p50 %.0f / p99 %.0f / max %.0f ms; after their slot was taken p50 "
      "%.1f / p99 %.1f / max %.1f ms\n",
      all.after_due_ns.size(), Quantile(all.after_due_ns, 0.5),
      Quantile(all.after_due_ns, 0.99), Quantile(all.after_due_ns, 1.0),
      Quantile(all.after_take_ns, 0.5), Quantile(all.after_take_ns, 0.99),
      Quantile(all.after_take_ns, 1.0));
  std::printf(
      "today's core (computed): %.0f bytes per process in its wheel (%" PRId64
      " hot timers x %.0f B); the takeover claims %" PRId64
      " rows (one write each), %.1f s of server time; due first, its first "
      "fire waits for a load of %" PRId64 " rows, %.0f ms\n",
      static_cast<double>(hot) / procs * absl::GetFlag(FLAGS_mirror_bytes),
      hot / procs, absl::GetFlag(FLAGS_mirror_bytes), today_rows_claimed,
      claim_s, std::min<int64_t>(kMaxLoad, today_largest_take),
      std::min<int64_t>(kMaxLoad, today_largest_take) *
          absl::GetFlag(FLAGS_claim_us_per_row) / 1000);
  return 0;
}

}  // namespace
}  // namespace timingwheel

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return timingwheel::Main();
}
