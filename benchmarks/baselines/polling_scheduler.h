// Copyright 2026 The timingwheel Authors.
//
// polling_scheduler.h
// -----------------------------------------------------------------------------
//
// `PollingScheduler`: the durable benchmark's baseline, a database-backed
// scheduler of the kind River, db-scheduler and Quartz use. Tasks are rows of
// `poll_timer(task_id, due_us, state, owner, locked_until_us, attempt,
// payload, finished_us)` with a partial index on `(due_us) WHERE state < 2`.
// One thread per scheduler:
//
//   every `interval` (at once again while a claim came back full):
//     one statement claims up to `batch` due rows, oldest first, with
//       `FOR UPDATE SKIP LOCKED`, marking them RUNNING (owner, lock until
//       now + lock_ttl, attempt + 1) and returning them;
//     the handler runs for each row;
//     one statement marks the batch done (state 2, finished_us).
//
// A RUNNING row whose lock expired (its owner died) is claimed again by the
// next poll of any scheduler (db-scheduler's "dead execution" rescue, River's
// rescuer). The database's clock is the only time authority, as in ours.
// Written as those libraries do it, batched, so that the comparison is fair:
// what it cannot do is fire between two polls.
//
// Thread safety: `Schedule`, `ScheduleBatch`, `Metrics` and `Stop` are
// thread-safe (the client connection is under a mutex); the handler runs on
// the polling thread.

#ifndef TIMINGWHEEL_BENCHMARKS_BASELINES_POLLING_SCHEDULER_H_
#define TIMINGWHEEL_BENCHMARKS_BASELINES_POLLING_SCHEDULER_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

typedef struct pg_conn PGconn;

namespace timingwheel {
namespace bench {

// PolledTask
//
// One claimed row, as the handler sees it.
struct PolledTask {
  std::string id;
  std::string payload;
  int attempt = 0;
  absl::Time due;  // Database clock.
};

// PollingOptions
struct PollingOptions {
  std::string conninfo;
  std::string node_id;  // Required, unique among live pollers.
  std::function<void(const PolledTask&)> handler;
  absl::Duration interval = absl::Seconds(1);   // River's default fetch poll.
  int batch = 1000;                             // Rows per claim.
  absl::Duration lock_ttl = absl::Seconds(10);  // Rescue after this.
};

// PollingMetrics
struct PollingMetrics {
  int64_t statements = 0;  // Counted client-side, on both connections.
  int64_t polls = 0;
  int64_t fired = 0;
};

// PollingScheduler
class PollingScheduler {
 public:
  // PollingScheduler::CreateSchema()
  //
  // Creates the table and index on `conninfo` if they do not exist.
  static absl::Status CreateSchema(const std::string& conninfo);

  // PollingScheduler::Create()
  //
  // Connects twice (client, poller) and starts polling. InvalidArgument
  // without handler or node id; Unavailable when it cannot connect.
  static absl::StatusOr<std::unique_ptr<PollingScheduler>> Create(
      PollingOptions options);

  PollingScheduler(const PollingScheduler&) = delete;
  PollingScheduler& operator=(const PollingScheduler&) = delete;
  ~PollingScheduler();

  // PollingScheduler::Schedule()
  //
  // Inserts one task due at `due` (database clock), one statement.
  absl::Status Schedule(const std::string& id, absl::Time due,
                        const std::string& payload);

  // PollingScheduler::ScheduleBatch()
  //
  // Inserts all rows in one statement (`unnest` of arrays).
  struct Request {
    std::string id;
    absl::Time due;
    std::string payload;
  };
  absl::Status ScheduleBatch(const std::vector<Request>& requests);

  PollingMetrics Metrics() const;

  // PollingScheduler::Stop()
  //
  // Stops polling after the current batch. Idempotent.
  void Stop();

 private:
  explicit PollingScheduler(PollingOptions options);
  void Loop();
  // One claim, run and completion. Returns the number of rows claimed, or -1
  // on an error.
  int PollOnce();

  PollingOptions options_;
  std::mutex client_mu_;
  PGconn* client_ = nullptr;     // Under client_mu_.
  PGconn* poll_conn_ = nullptr;  // Polling thread only.

  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;  // Under mu_.

  std::atomic<int64_t> statements_{0};
  std::atomic<int64_t> polls_{0};
  std::atomic<int64_t> fired_{0};
  std::thread thread_;
};

}  // namespace bench
}  // namespace timingwheel

#endif  // TIMINGWHEEL_BENCHMARKS_BASELINES_POLLING_SCHEDULER_H_
