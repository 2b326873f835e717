// Copyright 2026 The timingwheel Authors.
//
// durable_perf's takeover after kill -9: two scheduler processes of each
// implementation (forked), the one holding everything killed; ours: until
// the survivor holds every slot; the poller: until the survivor has re-run
// the rows the dead one had claimed. See durable_perf_util.h.

#include <signal.h>
#include <unistd.h>

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "benchmarks/baselines/polling_scheduler.h"
#include "benchmarks/durable_perf_util.h"
#include "benchmarks/pg_bench_util.h"
#include "durable/durable_scheduler.h"
#include "libpq-fe.h"

namespace timingwheel {
namespace bench {

std::pair<double, double> MeasureTakeover(const std::string& admin,
                                          absl::Duration ttl,
                                          absl::Duration interval) {
  auto ours_db = Must(BenchDatabase::Create(admin, "perf_takeover_ours"));
  auto poll_db = Must(BenchDatabase::Create(admin, "perf_takeover_poll"));
  const std::string ours = ours_db->conninfo(), poll = poll_db->conninfo();
  auto ours_node = [&](const std::string& node) {
    return [ours, node, ttl]() {
      DurableOptions o;
      o.conninfo = ours;
      o.node_id = node;
      o.lease_ttl = ttl;
      o.handler = [](const DurableTask&) { return absl::OkStatus(); };
      auto s = DurableScheduler::Create(o);
      if (!s.ok()) return 1;
      for (;;) pause();
    };
  };
  auto poll_node = [&](const std::string& node, bool block) {
    return [poll, node, ttl, interval, block]() {
      PollingOptions o;
      o.conninfo = poll;
      o.node_id = node;
      o.lock_ttl = ttl;
      o.interval = interval;
      o.handler = [block](const PolledTask&) {
        if (block) absl::SleepFor(absl::Hours(1));  // Dies holding its batch.
      };
      auto s = PollingScheduler::Create(o);
      if (!s.ok()) return 1;
      for (;;) pause();
    };
  };
  Must(PollingScheduler::CreateSchema(poll));
  PGconn* pc = Must(PgConnect(poll));
  Must(PgExec(pc,
              "INSERT INTO poll_timer (task_id, due_us, payload) SELECT "
              "'k' || g, (extract(epoch FROM clock_timestamp()) * 1e6)::bigint,"
              " '\\x00' FROM generate_series(1, 100) g"));
  std::vector<pid_t> pids;
  pid_t ours_victim = SpawnChild(ours_node("victim"));
  pid_t poll_victim = SpawnChild(poll_node("victim", true));
  pids = {ours_victim, poll_victim};
  const absl::Time limit = absl::Now() + absl::Seconds(60);
  // The victims hold everything: every slot, every claimed row.
  // Our store through the operators' API (the schema is the victim's to
  // create: until then Status() fails).
  std::unique_ptr<AdminStore> oc;
  int64_t slots = 0;
  for (;;) {
    if (absl::Now() > limit) Die(absl::DeadlineExceededError("victims"));
    absl::SleepFor(absl::Milliseconds(20));
    if (oc == nullptr) {
      auto c = AdminStore::Connect(ours);
      if (!c.ok()) continue;
      oc = *std::move(c);
    }
    absl::StatusOr<StoreStatus> status = oc->Status();
    if (!status.ok() || status->slot_count == 0 ||
        SlotsHeldBy(*status, "victim") < status->slot_count) {
      continue;
    }
    slots = status->slot_count;
    if (Int(pc,
            "SELECT count(*) FROM poll_timer WHERE state = 1 AND "
            "owner = 'victim'") == 100) {
      break;
    }
  }
  pid_t ours_survivor = SpawnChild(ours_node("survivor"));
  pid_t poll_survivor = SpawnChild(poll_node("survivor", false));
  pids.push_back(ours_survivor);
  pids.push_back(poll_survivor);
  while (!HasNode(Must(oc->Status()), "survivor")) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  absl::SleepFor(absl::Milliseconds(200));  // The poller survivor connects.
  const absl::Time t0 = absl::Now();
  KillChild(ours_victim, SIGKILL);
  KillChild(poll_victim, SIGKILL);
  double ours_s = -1, poll_s = -1;
  const absl::Time deadline = t0 + 3 * ttl + 4 * interval + absl::Seconds(10);
  while ((ours_s < 0 || poll_s < 0) && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));
    if (ours_s < 0 && SlotsHeldBy(Must(oc->Status()), "survivor") == slots) {
      ours_s = absl::ToDoubleSeconds(absl::Now() - t0);
    }
    if (poll_s < 0 &&
        Int(pc, "SELECT count(*) FROM poll_timer WHERE state < 2") == 0) {
      poll_s = absl::ToDoubleSeconds(absl::Now() - t0);
    }
  }
  KillChild(ours_survivor, SIGKILL);
  KillChild(poll_survivor, SIGKILL);
  PQfinish(pc);
  return {ours_s, poll_s};
}

}  // namespace bench
}  // namespace timingwheel
