// Copyright 2026 The timingwheel Authors.
//
// The scheduler: client calls on one connection, and a maintenance thread
// on another that renews leases, loads the horizon, fires due batches and
// records outcomes. Data flows one way: leases/loader -> Timer -> fire ->
// handler -> completion, and only the store speaks SQL.

#include "durable/durable_scheduler.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <random>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "durable/fault_point.h"
#include "durable/fire_batch.h"
#include "durable/request.h"
#include "durable/scheduler_metrics.h"

namespace timingwheel {
namespace {

using durable_internal::CheckDuration;
using durable_internal::Completion;
using durable_internal::SlotEpoch;
using durable_internal::Started;
using durable_internal::StatementKind;
using durable_internal::Store;
using durable_internal::WheelEntry;

// The most completions or fires written by one statement, and the most
// rows one horizon load claims (a full load is followed by another).
constexpr size_t kMaxBatch = 1000;
constexpr int64_t kMaxLoad = 100000;
// Wait between reconnection attempts while the database is unreachable.
constexpr absl::Duration kReconnectBackoff = absl::Milliseconds(100);

// The clock of the statement and handler durations (the metrics).
using SteadyClock = std::chrono::steady_clock;

int64_t RealNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string DefaultNodeId() {
  char host[256] = {0};
  if (gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
  std::random_device random;
  return absl::StrCat(host[0] ? host : "node", "-", getpid(), "-",
                      random() % 1000000);
}

absl::Status CheckOptions(const DurableOptions& o) {
  if (!o.handler && o.kinds.empty()) {
    return absl::InvalidArgumentError(
        "handler is required (or at least one of kinds)");
  }
  absl::flat_hash_set<std::string> kind_names;
  for (const TaskKind& kind : o.kinds) {
    absl::Status name = durable_internal::CheckKindName(kind.name);
    if (!name.ok()) return name;
    if (kind.name.empty()) {
      return absl::InvalidArgumentError(
          "kinds: a kind needs a name (the default kind's handler is "
          "`handler`)");
    }
    if (!kind_names.insert(kind.name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("kinds: \"", kind.name, "\" is named twice"));
    }
    if (!kind.handler) {
      return absl::InvalidArgumentError(
          absl::StrCat("kinds: \"", kind.name, "\" has no handler"));
    }
    if (kind.max_in_flight < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "kinds: \"", kind.name, "\": max_in_flight must be >= 0"));
    }
  }
  // Every duration is finite and at most 100 years, so that its
  // nanoseconds (local deadlines) and the database's now plus its
  // microseconds (statements) stay inside int64.
  absl::Status status =
      CheckDuration("horizon", o.horizon, absl::Microseconds(1));
  if (status.ok()) {
    status = CheckDuration("lease_ttl", o.lease_ttl, absl::Milliseconds(100));
  }
  if (status.ok()) {
    status = CheckDuration("retain_finished", o.retain_finished,
                           absl::ZeroDuration());
  }
  if (status.ok()) {
    status = CheckDuration("retry.initial_backoff", o.retry.initial_backoff,
                           absl::ZeroDuration());
  }
  if (status.ok()) {
    status = CheckDuration("retry.max_backoff", o.retry.max_backoff,
                           absl::ZeroDuration());
  }
  if (!status.ok()) return status;
  status = durable_internal::CheckClientLimits(
      o.slot_count, {o.max_id_bytes, o.max_payload_bytes});
  if (!status.ok()) return status;
  if (o.retry.max_attempts < 1 || !(o.retry.multiplier >= 1.0) ||
      !std::isfinite(o.retry.multiplier)) {
    return absl::InvalidArgumentError(
        "retry: max_attempts >= 1, multiplier finite and >= 1");
  }
  if (!(o.retry.jitter >= 0.0 && o.retry.jitter <= 1.0)) {
    return absl::InvalidArgumentError("retry.jitter must be in [0, 1]");
  }
  if (o.max_in_flight < 1) {
    return absl::InvalidArgumentError("max_in_flight must be at least 1");
  }
  if (o.node_id.size() > 200 || o.node_id.find('\0') != std::string::npos) {
    return absl::InvalidArgumentError(
        "node_id: at most 200 bytes of text without NUL");
  }
  if (!(o.unknown_kind_delay >= absl::Milliseconds(1)) ||
      o.unknown_kind_delay > absl::Hours(24 * 365 * 100)) {
    return absl::InvalidArgumentError(
        "unknown_kind_delay must be in [1 ms, 100 years]");
  }
  if (o.attempt_timeout < absl::ZeroDuration() ||
      o.attempt_timeout == absl::InfiniteDuration()) {
    return absl::InvalidArgumentError(
        "attempt_timeout must be finite and >= 0 (zero: none)");
  }
  if (o.statement_timeout < absl::ZeroDuration() ||
      o.statement_timeout > o.lease_ttl / 4) {
    return absl::InvalidArgumentError(
        "statement_timeout must be in [0, lease_ttl / 4] (zero: lease_ttl "
        "/ 4), so that no statement holds a process past its lease");
  }
  return absl::OkStatus();
}

// The scheduler whose handler the calling thread is running, if any (to
// tell a Shutdown() from inside a handler).
thread_local const void* tls_handler_of = nullptr;

}  // namespace

// DurableScheduler::AttemptLink
//
// What an attempt queued on (or running on) the executor shares with its
// scheduler. The scheduler may be destroyed while an attempt waits in a
// user's executor or a handler never returns: the attempt then finds
// `scheduler` null and touches nothing else. Thread-safe.
struct DurableScheduler::AttemptLink {
  std::shared_ptr<const durable_internal::KindTable> kinds;
  RetryPolicy retry;
  std::string node_id;
  absl::Duration unknown_kind_delay;

  // The scheduler, with a count of the threads inside its attempt steps;
  // null once it is gone.
  DurableScheduler* Enter() {
    std::lock_guard<std::mutex> lock(mu);
    if (scheduler != nullptr) ++inside;
    return scheduler;
  }
  void Leave() {
    std::lock_guard<std::mutex> lock(mu);
    if (--inside == 0) cv.notify_all();
  }
  // Waits for the threads inside (each in a short step, never a handler),
  // then cuts the link.
  void Detach() {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [this] { return inside == 0; });
    scheduler = nullptr;
  }

  std::mutex mu;
  std::condition_variable cv;
  DurableScheduler* scheduler = nullptr;  // Under mu.
  int inside = 0;                         // Under mu.
};

DurableScheduler::DurableScheduler(DurableOptions options)
    : options_(std::move(options)),
      kinds_(std::make_shared<durable_internal::KindTable>(options_.handler,
                                                           options_.kinds)),
      clock_(options_.timer_options.clock != nullptr
                 ? options_.timer_options.clock
                 : Clock::Real()),
      fire_queue_(options_.max_in_flight, *kinds_),
      histograms_(std::make_unique<durable_internal::SchedulerHistograms>()) {}

absl::StatusOr<std::unique_ptr<DurableScheduler>> DurableScheduler::Create(
    DurableOptions options) {
  absl::Status status = CheckOptions(options);
  if (!status.ok()) return status;
  if (options.node_id.empty()) options.node_id = DefaultNodeId();
  std::unique_ptr<DurableScheduler> scheduler(
      new DurableScheduler(std::move(options)));
  status = scheduler->Start();
  if (!status.ok()) return status;
  return scheduler;
}

absl::Status DurableScheduler::Start() {
  const absl::Duration statement_timeout =
      options_.statement_timeout > absl::ZeroDuration()
          ? options_.statement_timeout
          : options_.lease_ttl / 4;
  durable_internal::SessionLimits limits;
  limits.statement_timeout_ms =
      std::max<int64_t>(1, absl::ToInt64Milliseconds(statement_timeout));
  limits.lock_timeout_ms = limits.statement_timeout_ms;
  durable_internal::ClientCore::Options client_options;
  client_options.conninfo = options_.conninfo;
  client_options.slot_count = options_.slot_count;
  client_options.limits = {options_.max_id_bytes, options_.max_payload_bytes};
  client_options.closed_message = "scheduler is shut down";
  client_options.session_limits = limits;
  absl::StatusOr<std::unique_ptr<durable_internal::ClientCore>> client =
      durable_internal::ClientCore::Create(std::move(client_options));
  if (!client.ok()) return client.status();
  absl::StatusOr<std::unique_ptr<Store>> store =
      Store::Connect(options_.conninfo, limits);
  if (!store.ok()) return store.status();
  // A live duplicate holds it for good; a crashed predecessor's session
  // ends within a statement timeout: wait up to half a TTL.
  absl::StatusOr<bool> node_free = false;
  for (int i = 0; i < 2 && node_free.ok() && !*node_free; ++i) {
    node_free = (*store)->LockNode(options_.node_id);
  }
  if (!node_free.ok()) return node_free.status();
  if (!*node_free) {
    return absl::FailedPreconditionError(absl::StrCat(
        "node_id \"", options_.node_id,
        "\" is held by another live scheduler on this database: give each "
        "scheduler its own node_id (or leave it empty for a generated one)"));
  }
  absl::Status status = (*store)->Listen();
  if (!status.ok()) return status;
  status = (*store)->RegisterKinds(options_.node_id, kinds_->names());
  if (!status.ok()) return status;
  load_limit_ = kMaxLoad;
  link_ = std::make_shared<AttemptLink>();
  link_->kinds = kinds_;
  link_->retry = options_.retry;
  link_->node_id = options_.node_id;
  link_->unknown_kind_delay = options_.unknown_kind_delay;
  link_->scheduler = this;
  client_ = *std::move(client);
  store_ = *std::move(store);

  absl::StatusOr<std::unique_ptr<Timer>> timer =
      Timer::Create(options_.timer_options);
  if (!timer.ok()) return timer.status();
  timer_ = *std::move(timer);
  if (options_.executor == nullptr) {
    owned_executor_ = std::make_unique<ThreadExecutor>();
    executor_ = owned_executor_.get();
  } else {
    executor_ = options_.executor;
  }
  leases_ = std::make_unique<durable_internal::SlotLeases>(
      options_.node_id, options_.slot_count,
      absl::ToInt64Microseconds(options_.lease_ttl),
      options_.retry.max_attempts, absl::ToInt64Microseconds(options_.horizon));
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) return absl::InternalError("eventfd failed");

  // Take the first share and load it before returning, so that a lone
  // scheduler owns its slots when Create() returns.
  LeaseRound();
  LoadHorizon();
  maintenance_ = std::thread([this] { MaintenanceLoop(); });
  return absl::OkStatus();
}

DurableScheduler::~DurableScheduler() {
  Shutdown();
  // Attempts still queued or running find the link cut and touch nothing.
  if (link_ != nullptr) link_->Detach();
  if (owned_executor_ != nullptr && HandlersStillRunning()) {
    // A handler that never returned holds the executor's thread: leave the
    // thread (and its executor) to it rather than wait forever.
    (void)owned_executor_.release();
  }
  if (wake_fd_ >= 0) close(wake_fd_);
}

bool DurableScheduler::HandlersStillRunning() {
  std::lock_guard<std::mutex> lock(mu_);
  return metrics_.in_flight > 0 ||
         (owned_executor_ != nullptr && owned_executor_->IsCurrentThread());
}

DurableMetrics DurableScheduler::Metrics() const {
  std::lock_guard<std::mutex> lock(mu_);
  DurableMetrics m = metrics_;
  m.wheel_pending = static_cast<int64_t>(wheel_.size());
  m.waiting = static_cast<int64_t>(fire_queue_.size());
  m.slots_owned = static_cast<int64_t>(owned_.size());
  return m;
}

void DurableScheduler::Shutdown() {
  std::lock_guard<std::mutex> shutdown_lock(shutdown_mu_);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    stopping_ = true;
    // Called from one of our handlers: do not wait for that one.
    shutdown_in_handler_ = tls_handler_of == this;
  }
  Wake();
  if (maintenance_.joinable()) maintenance_.join();
  // Tasks still in the wheel stay SCHEDULED under our epoch in the table;
  // the next owner of their slots re-stamps and loads them.
  if (timer_ != nullptr) timer_->Shutdown();
  {
    std::lock_guard<std::mutex> lock(mu_);
    wheel_.clear();
    overflow_.clear();
  }
  // Join the owned executor only when no handler holds it (one that never
  // returns would hold Shutdown() forever); queued attempts that have not
  // started abandon at once.
  if (owned_executor_ != nullptr && !HandlersStillRunning()) {
    owned_executor_->Shutdown();
  }
  if (client_ != nullptr) client_->Close();
}

// ---------------------------------------------------------------------------
// The wheel.

void DurableScheduler::AddToWheel(const WheelEntry& entry, int64_t db_now_us,
                                  int64_t local_after_nanos) {
  const int64_t local_due = durable_internal::LocalDueNanos(
      entry.due_us, db_now_us, local_after_nanos);
  std::lock_guard<std::mutex> lock(mu_);
  (void)AddToWheelLocked(entry, local_due);
}

bool DurableScheduler::AddToWheelLocked(const WheelEntry& entry,
                                        int64_t local_due) {
  if (stopping_) return true;
  auto owned = owned_.find(entry.slot);
  if (owned == owned_.end() || owned->second != entry.epoch) {
    return true;  // The slot moved meanwhile: its new owner has the task.
  }
  LiveEntry& live = wheel_[entry.id];
  live.handle.Cancel();  // A previous timer for the same id, if any.
  live.slot = entry.slot;
  live.kind = static_cast<int16_t>(kinds_->IndexOf(entry.kind));
  live.priority = static_cast<int16_t>(entry.priority);
  live.epoch = entry.epoch;
  live.due_us = entry.due_us;
  live.generation = next_generation_++;
  const int64_t delay = local_due - clock_->NowNanos();
  absl::StatusOr<TimerHandle> handle =
      timer_->Schedule(absl::Nanoseconds(std::max<int64_t>(0, delay)),
                       [this, id = entry.id, generation = live.generation] {
                         OnWheelFire(id, generation);
                       });
  if (!handle.ok()) {
    wheel_.erase(entry.id);
    if (absl::IsResourceExhausted(handle.status())) {
      // The wheel is full (timer_options.max_pending): keep the claimed
      // row in memory, with its due time on our clock, until there is room.
      overflow_.emplace_back(entry, local_due);
      load_waits_for_room_ = true;
      return false;
    }
    return true;  // Shutting down.
  }
  live.handle = *std::move(handle);
  return true;
}

void DurableScheduler::RetryOverflow() {
  std::lock_guard<std::mutex> lock(mu_);
  if (overflow_.empty()) return;
  std::vector<std::pair<WheelEntry, int64_t>> kept;
  kept.swap(overflow_);
  size_t i = 0;
  for (; i < kept.size(); ++i) {
    if (!AddToWheelLocked(kept[i].first, kept[i].second)) {
      overflow_.pop_back();  // Still full: keep the rest as they were.
      break;
    }
  }
  overflow_.insert(overflow_.end(), std::make_move_iterator(kept.begin() + i),
                   std::make_move_iterator(kept.end()));
}

void DurableScheduler::OnWheelFire(const std::string& id, uint64_t generation) {
  bool first;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = wheel_.find(id);
    if (it == wheel_.end() || it->second.generation != generation) return;
    first = fire_queue_.empty();
    durable_internal::FireQueue::Waiting waiting;
    waiting.entry.id = id;
    waiting.entry.slot = it->second.slot;
    waiting.entry.due_us = it->second.due_us;
    waiting.entry.epoch = it->second.epoch;
    waiting.entry.priority = it->second.priority;
    waiting.kind = it->second.kind;
    fire_queue_.Push(std::move(waiting));
    wheel_.erase(it);
    // Room in a full wheel: take what waited for it (the overflow, then a
    // load for the rows a load left PENDING).
    if (load_waits_for_room_) {
      load_waits_for_room_ = false;
      load_requested_ = true;
      first = true;
    }
  }
  // One wake-up per batch: the maintenance thread takes what accumulated
  // meanwhile in one statement.
  if (first) Wake();
}

void DurableScheduler::DropSlots(const std::vector<int>& slots) {
  if (slots.empty()) return;
  absl::flat_hash_set<int> gone(slots.begin(), slots.end());
  std::lock_guard<std::mutex> lock(mu_);
  for (int slot : slots) owned_.erase(slot);
  for (auto it = wheel_.begin(); it != wheel_.end();) {
    if (gone.contains(it->second.slot)) {
      it->second.handle.Cancel();
      wheel_.erase(it++);
    } else {
      ++it;
    }
  }
  auto in_gone = [&](const WheelEntry& e) { return gone.contains(e.slot); };
  fire_queue_.RemoveIf([&](const durable_internal::FireQueue::Waiting& w) {
    return in_gone(w.entry);
  });
  overflow_.erase(
      std::remove_if(overflow_.begin(), overflow_.end(),
                     [&](const auto& kept) { return in_gone(kept.first); }),
      overflow_.end());
}

// ---------------------------------------------------------------------------
// The maintenance thread.

void DurableScheduler::Wake() {
  uint64_t one = 1;
  if (wake_fd_ >= 0) (void)!write(wake_fd_, &one, sizeof(one));
}

void DurableScheduler::NoteDbError(const absl::Status& status) {
  // Statements wait a little before the next try, so a failing statement
  // never spins.
  backoff_until_ = RealNanos() + absl::ToInt64Nanoseconds(kReconnectBackoff);
  std::lock_guard<std::mutex> lock(mu_);
  ++metrics_.db_errors;
  if (absl::IsUnavailable(status)) store_broken_ = true;
}

void DurableScheduler::LeaseRound() {
  const int64_t started = RealNanos();
  const SteadyClock::time_point timed = SteadyClock::now();
  absl::StatusOr<durable_internal::SlotLeases::Changes> changes =
      leases_->Tick(*store_, [this](int slot) {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = running_per_slot_.find(slot);
        return it == running_per_slot_.end() || it->second == 0;
      });
  histograms_->ObserveStatement(StatementKind::kLeaseRound, timed);
  if (!changes.ok()) {
    NoteDbError(changes.status());
    return;
  }
  lease_valid_until_ = started + absl::ToInt64Nanoseconds(options_.lease_ttl);
  std::vector<int> dropped = changes->lost;
  for (const SlotEpoch& s : changes->released) dropped.push_back(s.slot);
  DropSlots(dropped);
  std::lock_guard<std::mutex> lock(mu_);
  for (const SlotEpoch& s : changes->acquired) owned_[s.slot] = s.epoch;
  metrics_.slots_acquired += static_cast<int64_t>(changes->acquired.size());
  metrics_.slots_lost += static_cast<int64_t>(changes->lost.size());
  if (!changes->acquired.empty()) load_requested_ = true;
}

void DurableScheduler::LoadHorizon() {
  std::vector<SlotEpoch> owned = leases_->owned();
  int64_t limit = load_limit_;
  {
    std::lock_guard<std::mutex> lock(mu_);
    load_requested_ = false;
    const int64_t max_pending = options_.timer_options.max_pending;
    if (max_pending > 0) {
      // Claim no more than the wheel can hold; the rest stay PENDING until
      // fires make room.
      const int64_t room = max_pending - static_cast<int64_t>(wheel_.size()) -
                           static_cast<int64_t>(overflow_.size());
      if (room <= 0) {
        load_waits_for_room_ = true;
        return;
      }
      if (room < limit) {
        limit = room;
        load_waits_for_room_ = true;
      }
    }
  }
  if (owned.empty()) return;
  const SteadyClock::time_point timed = SteadyClock::now();
  absl::StatusOr<durable_internal::Claimed> claimed =
      store_->ClaimDue(options_.node_id, owned,
                       absl::ToInt64Microseconds(options_.horizon), limit);
  histograms_->ObserveStatement(StatementKind::kClaimDue, timed);
  const int64_t local_after = clock_->NowNanos();
  if (!claimed.ok()) {
    if (absl::IsDeadlineExceeded(claimed.status())) {
      // Too many rows for one statement within the timeout: fewer next.
      load_limit_ = std::max<int64_t>(100, load_limit_ / 2);
      std::lock_guard<std::mutex> lock(mu_);
      ++metrics_.statement_timeouts;
    }
    NoteDbError(claimed.status());
    std::lock_guard<std::mutex> lock(mu_);
    load_requested_ = true;
    return;
  }
  if (static_cast<int64_t>(claimed->tasks.size()) >= limit &&
      limit == load_limit_) {
    load_limit_ = std::min<int64_t>(kMaxLoad, load_limit_ * 2);
  }
  if (!claimed->tasks.empty()) durable_internal::FaultPoint("load.claimed");
  for (const WheelEntry& e : claimed->tasks) {
    AddToWheel(e, claimed->db_now_us, local_after);
  }
  std::lock_guard<std::mutex> lock(mu_);
  ++metrics_.loads;
  metrics_.loaded += static_cast<int64_t>(claimed->tasks.size());
  if (static_cast<int64_t>(claimed->tasks.size()) >= limit &&
      !load_waits_for_room_) {
    load_requested_ = true;  // A full load: more may be due.
  }
}

bool DurableScheduler::FireReady() const {
  // With handlers running, waits for room for a good batch rather than
  // firing one row per statement (FireQueue::Ready()).
  return fire_queue_.Ready(metrics_.in_flight);
}

void DurableScheduler::FireWaiting() {
  std::vector<durable_internal::FireQueue::Waiting> taken;
  std::vector<WheelEntry> batch;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!FireReady()) return;
    taken = fire_queue_.Take(metrics_.in_flight, kMaxBatch);
    if (taken.empty()) return;
    metrics_.in_flight += static_cast<int64_t>(taken.size());  // Reserved.
  }
  batch.reserve(taken.size());
  for (const durable_internal::FireQueue::Waiting& w : taken) {
    batch.push_back(w.entry);
  }
  durable_internal::FaultPoint("fire.before");
  const SteadyClock::time_point timed = SteadyClock::now();
  absl::StatusOr<durable_internal::FireResult> result =
      store_->StartRunning(options_.node_id, batch);
  const int64_t local_after = clock_->NowNanos();
  histograms_->ObserveStatement(StatementKind::kStartRunning, timed);
  if (!result.ok()) {
    NoteDbError(result.status());
    std::lock_guard<std::mutex> lock(mu_);
    metrics_.in_flight -= static_cast<int64_t>(batch.size());
    fire_queue_.PutBack(std::move(taken));
    return;
  }
  db_minus_local_nanos_ = result->db_now_us * 1000 - local_after;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const int64_t started = static_cast<int64_t>(result->started.size());
    const int64_t not_due = static_cast<int64_t>(result->not_due.size());
    metrics_.in_flight -= static_cast<int64_t>(batch.size()) - started;
    metrics_.attempts += started;
    metrics_.not_due += not_due;
    metrics_.dropped += static_cast<int64_t>(batch.size()) - started - not_due;
    // The reservations move to the attempts started, by the kind their rows
    // name (released as each attempt ends).
    for (const durable_internal::FireQueue::Waiting& w : taken) {
      fire_queue_.Release(w.kind);
    }
    for (const Started& s : result->started) {
      fire_queue_.Reserve(kinds_->IndexOf(s.task.kind));
      ++running_per_slot_[s.slot];
      running_[s.task.id] = s.version;  // The newest attempt of the id.
    }
  }
  for (const WheelEntry& e : result->not_due) {
    AddToWheel(e, result->db_now_us, local_after);
  }
  if (!result->started.empty()) durable_internal::FaultPoint("fire.started");
  for (Started& s : result->started) {
    executor_->Execute([link = link_, s = std::move(s)]() mutable {
      RunAttemptVia(std::move(link), std::move(s));
    });
  }
}

void DurableScheduler::RunAttemptVia(std::shared_ptr<AttemptLink> link,
                                     Started started) {
  DurableScheduler* self = link->Enter();
  // The scheduler is gone: the row stays RUNNING with this attempt
  // uncounted, and the slot's next owner runs it under the same number.
  if (self == nullptr) return;
  // Raised by CancelTask() of this task, or at the deadline; registered by
  // BeginAttempt() under the lock it takes anyway.
  started.task.stop_flag = std::make_shared<std::atomic<bool>>(false);
  const bool run = self->BeginAttempt(started);
  TimerHandle stop_timer;
  const absl::Duration timeout = self->options_.attempt_timeout;
  if (run && timeout > absl::ZeroDuration()) {
    // Raised by the scheduler's own wheel at the deadline.
    started.task.deadline = absl::Now() + timeout;
    stop_timer = self->timer_
                     ->Schedule(timeout,
                                [flag = started.task.stop_flag] {
                                  flag->store(true, std::memory_order_release);
                                })
                     .value_or(TimerHandle());
  }
  link->Leave();
  if (!run) return;
  const int kind = link->kinds->IndexOf(started.task.kind);
  const DurableHandler& handler = link->kinds->handler(kind);
  Completion completion;
  std::chrono::duration<double> handler_took{0};
  if (handler) {
    tls_handler_of = self;
    const SteadyClock::time_point handler_began = SteadyClock::now();
    absl::Status result = durable_internal::RunHandler(handler, started.task);
    handler_took = SteadyClock::now() - handler_began;
    tls_handler_of = nullptr;
    stop_timer.Cancel();
    if (!result.ok() && absl::Now() > started.task.deadline) {
      result = absl::DeadlineExceededError(
          absl::StrCat("attempt timed out after ",
                       absl::FormatDuration(timeout), ": ", result.ToString()));
    }
    durable_internal::FaultPoint("handler.returned");
    completion = durable_internal::MakeCompletion(started, result, link->retry);
  } else {
    // No handler of its kind here (another scheduler registered it): not
    // lost, not failed; due again later, when an owner may have one.
    stop_timer.Cancel();
    completion = durable_internal::UnknownKindCompletion(
        started, link->node_id, link->unknown_kind_delay);
  }
  self = link->Enter();
  if (self == nullptr) return;  // Gone meanwhile (see Shutdown()).
  {
    std::lock_guard<std::mutex> lock(self->mu_);
    auto flag = self->stop_flags_.find(started.task.id);
    if (flag != self->stop_flags_.end() &&
        flag->second == started.task.stop_flag) {
      self->stop_flags_.erase(flag);
    }
  }
  if (handler) {
    self->histograms_->handler_duration.Observe(handler_took.count());
  }
  self->FinishAttempt(std::move(completion), started.slot, started.epoch, kind);
  link->Leave();
}

void DurableScheduler::EndAttemptLocked(const std::string& id, int64_t version,
                                        int slot) {
  // A newer attempt of the same id (fired after a takeover re-stamped the
  // row, while this one waited on the executor) keeps its entry.
  auto it = running_.find(id);
  if (it != running_.end() && it->second == version) running_.erase(it);
  --running_per_slot_[slot];
}

bool DurableScheduler::BeginAttempt(const Started& started) {
  durable_internal::FaultPoint("attempt.before_start");
  std::lock_guard<std::mutex> lock(mu_);
  auto owned = owned_.find(started.slot);
  const bool held = owned != owned_.end() && owned->second == started.epoch &&
                    !stopping_ && RealNanos() < lease_valid_until_.load();
  if (!held) {
    // The process stalled (or the slot moved, or we are shutting down)
    // between the fire and now: another owner may hold the slot and run
    // this attempt. The row stays RUNNING with the attempt uncounted; a
    // requeue (if the slot is still ours) or the next owner runs it.
    EndAttemptLocked(started.task.id, started.version, started.slot);
    --metrics_.in_flight;
    fire_queue_.Release(kinds_->IndexOf(started.task.kind));
    ++metrics_.abandoned;
    requeue_requested_ = true;
    Wake();
    return false;
  }
  stop_flags_[started.task.id] = started.task.stop_flag;
  // The attempt counts from now: recorded by the next statement the
  // maintenance thread writes (or by its outcome). Its lateness: the start
  // on the database's clock (as of the last fire) minus its due time.
  const int64_t late_us =
      (clock_->NowNanos() + db_minus_local_nanos_.load()) / 1000 -
      absl::ToUnixMicros(started.task.due);
  histograms_->fire_lateness.Observe(std::max<int64_t>(0, late_us) * 1e-6);
  const bool first = marks_.empty();
  marks_.push_back({started.task.id, started.version, started.task.attempt});
  if (first) Wake();
  return true;
}

void DurableScheduler::FinishAttempt(Completion completion, int slot,
                                     int64_t epoch, int kind) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (kind == kinds_->unknown()) ++metrics_.unknown_kind;
    if (!maintenance_done_) {
      const bool wake = completed_.empty() || FireReady();
      completed_.push_back(std::move(completion));
      --metrics_.in_flight;
      fire_queue_.Release(kind);
      if (wake) Wake();  // Else the maintenance thread was woken already.
      return;
    }
  }
  // The maintenance thread has ended (Shutdown() stopped waiting for this
  // handler, or was called from it): write the outcome here, then give the
  // slot up if no other handler of ours runs in it.
  std::lock_guard<std::mutex> late(late_mu_);
  absl::StatusOr<durable_internal::CompleteResult> result = store_->Complete(
      {&completion, 1}, absl::ToInt64Microseconds(options_.horizon),
      AttemptLogOf());
  bool release;
  {
    std::lock_guard<std::mutex> lock(mu_);
    --metrics_.in_flight;
    fire_queue_.Release(kind);
    ++metrics_.late_outcomes;
    if (result.ok()) {
      metrics_.succeeded += result->succeeded;
      metrics_.failed += result->failed;
      metrics_.retried += result->retried;
      metrics_.dropped += 1 - result->written;
    } else {
      ++metrics_.db_errors;
    }
    EndAttemptLocked(completion.id, completion.version, slot);
    release = running_per_slot_[slot] == 0;
  }
  if (release) {
    SlotEpoch held{slot, epoch};
    (void)store_->Release(options_.node_id, {&held, 1});
  }
}

void DurableScheduler::WriteStartMarks(
    const absl::flat_hash_set<std::string>& completing) {
  std::vector<durable_internal::StartMark> marks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (marks_.empty()) return;
    marks.swap(marks_);
  }
  // An outcome about to be written records its attempt itself.
  marks.erase(std::remove_if(marks.begin(), marks.end(),
                             [&](const durable_internal::StartMark& m) {
                               return completing.contains(m.id);
                             }),
              marks.end());
  if (marks.empty()) return;
  const SteadyClock::time_point timed = SteadyClock::now();
  absl::StatusOr<int64_t> marked = store_->MarkStarted(marks);
  histograms_->ObserveStatement(StatementKind::kMarkStarted, timed);
  if (!marked.ok()) {
    NoteDbError(marked.status());
    std::lock_guard<std::mutex> lock(mu_);
    marks_.insert(marks_.begin(), std::make_move_iterator(marks.begin()),
                  std::make_move_iterator(marks.end()));
  }
}

void DurableScheduler::WriteCompletions() {
  std::vector<Completion> batch;
  {
    std::lock_guard<std::mutex> lock(mu_);
    size_t take = std::min(completed_.size(), kMaxBatch);
    batch.assign(std::make_move_iterator(completed_.begin()),
                 std::make_move_iterator(completed_.begin() + take));
    completed_.erase(completed_.begin(), completed_.begin() + take);
  }
  absl::flat_hash_set<std::string> completing;
  for (const Completion& c : batch) completing.insert(c.id);
  WriteStartMarks(completing);
  if (batch.empty()) return;
  const SteadyClock::time_point timed = SteadyClock::now();
  // Recurring schedules' next occurrences commit with their outcomes.
  absl::StatusOr<durable_internal::CompleteResult> result =
      CompleteAndAdvance(batch);
  const int64_t local_after = clock_->NowNanos();
  histograms_->ObserveStatement(StatementKind::kComplete, timed);
  if (!result.ok()) {
    NoteDbError(result.status());
    std::lock_guard<std::mutex> lock(mu_);
    completed_.insert(completed_.begin(),
                      std::make_move_iterator(batch.begin()),
                      std::make_move_iterator(batch.end()));
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const Completion& c : batch) {
      EndAttemptLocked(c.id, c.version, c.slot);
    }
    metrics_.dropped += static_cast<int64_t>(batch.size()) - result->written;
    metrics_.succeeded += result->succeeded;
    metrics_.failed += result->failed;
    metrics_.retried += result->retried;
  }
  for (const WheelEntry& e : result->retries) {
    AddToWheel(e, result->db_now_us, local_after);
  }
}

void DurableScheduler::DeleteFinished() {
  std::vector<SlotEpoch> owned = leases_->owned();
  if (owned.empty()) return;
  const SteadyClock::time_point timed = SteadyClock::now();
  absl::StatusOr<int64_t> deleted = store_->DeleteFinished(
      owned, absl::ToInt64Microseconds(options_.retain_finished),
      static_cast<int64_t>(kMaxBatch));
  histograms_->ObserveStatement(StatementKind::kDeleteFinished, timed);
  if (!deleted.ok()) {
    NoteDbError(deleted.status());
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  metrics_.finished_deleted += *deleted;
}

bool DurableScheduler::Reconnect() {
  if (!store_->Reconnect().ok()) return false;
  // A fire statement whose reply was lost may have moved rows to RUNNING
  // that no handler of ours runs: put them back.
  std::vector<std::string> running;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [id, version] : running_) running.push_back(id);
  }
  // Every statement in flight may have committed without its reply: a
  // load's or a retry's SCHEDULED rows would be in no wheel. Put all our
  // SCHEDULED rows back to PENDING (the load below claims them again) with
  // the RUNNING rows no handler of ours runs.
  durable_internal::FaultPoint("reconnect.before_requeue");
  absl::StatusOr<int64_t> requeued = store_->RequeueOrphans(
      options_.node_id, leases_->owned(), running, options_.retry.max_attempts,
      /*include_scheduled=*/true);
  if (!requeued.ok()) return false;
  std::lock_guard<std::mutex> lock(mu_);
  store_broken_ = false;
  ++metrics_.reconnects;
  metrics_.requeued += *requeued;
  load_requested_ = true;
  return true;
}

void DurableScheduler::RequeueAbandoned() {
  std::vector<std::string> running;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!requeue_requested_) return;
    requeue_requested_ = false;
    for (const auto& [id, version] : running_) running.push_back(id);
  }
  if (leases_->size() == 0) return;
  const SteadyClock::time_point timed = SteadyClock::now();
  absl::StatusOr<int64_t> requeued = store_->RequeueOrphans(
      options_.node_id, leases_->owned(), running, options_.retry.max_attempts,
      /*include_scheduled=*/false);
  histograms_->ObserveStatement(StatementKind::kRequeueOrphans, timed);
  if (!requeued.ok()) NoteDbError(requeued.status());
  std::lock_guard<std::mutex> lock(mu_);
  if (!requeued.ok()) {
    requeue_requested_ = true;
  } else if (*requeued > 0) {
    metrics_.requeued += *requeued;
    load_requested_ = true;
  }
}

void DurableScheduler::ConsumeNotifications() {
  std::vector<int> slots;
  std::vector<std::string> stops;
  absl::Status status = store_->DrainNotifications(&slots, &stops);
  if (!status.ok()) {
    NoteDbError(status);
    return;
  }
  if (slots.empty() && stops.empty()) return;
  std::lock_guard<std::mutex> lock(mu_);
  for (const std::string& id : stops) {
    auto flag = stop_flags_.find(id);
    if (flag != stop_flags_.end()) {
      flag->second->store(true, std::memory_order_release);
    }
  }
  for (int slot : slots) {
    if (slot == durable_internal::kAllSlots || owned_.contains(slot)) {
      load_requested_ = true;
    }
  }
}

void DurableScheduler::FinishMaintenance(bool broken) {
  std::lock_guard<std::mutex> late(late_mu_);
  absl::flat_hash_set<int> busy;
  {
    // From here on, outcomes are written by the handlers' own threads.
    std::lock_guard<std::mutex> lock(mu_);
    maintenance_done_ = true;
  }
  if (!broken) {
    // What was queued before the switch.
    WriteCompletions();
    RequeueAbandoned();
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [slot, running] : running_per_slot_) {
      if (running > 0) busy.insert(slot);
    }
  }
  // Slots with handlers still running stay ours until those handlers
  // return (FinishAttempt() releases them) or the lease runs out.
  std::vector<SlotEpoch> idle;
  for (const SlotEpoch& s : leases_->owned()) {
    if (!busy.contains(s.slot)) idle.push_back(s);
  }
  if (!broken) {
    (void)store_->Release(options_.node_id, idle);
    (void)store_->RemoveNode(options_.node_id);
  }
  std::vector<int> released = leases_->Forget();
  std::vector<int> dropped;
  for (int slot : released) {
    if (!busy.contains(slot)) dropped.push_back(slot);
  }
  DropSlots(dropped);
  std::lock_guard<std::mutex> lock(mu_);
  for (int slot : busy) owned_.erase(slot);
}

void DurableScheduler::MaintenanceLoop() {
  const int64_t ttl = absl::ToInt64Nanoseconds(options_.lease_ttl);
  const int64_t half_horizon =
      std::max<int64_t>(1, absl::ToInt64Nanoseconds(options_.horizon) / 2);
  int64_t next_lease = RealNanos() + ttl / 3;
  int64_t next_load = RealNanos() + half_horizon;
  // Finished rows are deleted every minute, or every half retention when
  // that is shorter (at most every 100 ms).
  const int64_t cleanup_every = std::max<int64_t>(
      absl::ToInt64Nanoseconds(absl::Milliseconds(100)),
      std::min(absl::ToInt64Nanoseconds(absl::Minutes(1)),
               absl::ToInt64Nanoseconds(options_.retain_finished) / 2));
  int64_t next_cleanup = RealNanos() + cleanup_every;
  int64_t next_reconnect = 0;
  int64_t shutdown_deadline = 0;
  bool shutdown_seen = false;

  for (;;) {
    int64_t now = RealNanos();
    bool stopping, broken, load_now;
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping = stopping_;
      broken = store_broken_;
      load_now = load_requested_;
    }
    // Half the TTL for the handlers; the final statements, each bounded by
    // statement_timeout (a quarter of the TTL at most), fit in the rest.
    if (stopping && shutdown_deadline == 0) shutdown_deadline = now + ttl / 2;

    if (broken && now >= next_reconnect) {
      if (Reconnect()) {
        broken = false;
      } else {
        next_reconnect = now + absl::ToInt64Nanoseconds(kReconnectBackoff);
      }
    }
    const bool backing_off = now < backoff_until_;
    if (!broken && !stopping && !backing_off) {
      if (now >= next_lease) {
        LeaseRound();
        next_lease = now + ttl / 3;
      }
      RequeueAbandoned();
      if (load_now || now >= next_load) {
        LoadHorizon();
        RunScheduleDuty();  // Recurring schedules (scheduler_schedules.cc).
        next_load = now + half_horizon;
      }
      FireWaiting();
      if (now >= next_cleanup) {
        DeleteFinished();
        next_cleanup = now + cleanup_every;
      }
    }
    if (!broken && !backing_off) {
      WriteCompletions();
      if (stopping) RequeueAbandoned();
    }
    RetryOverflow();

    if (!stopping && leases_->size() > 0 && now > lease_valid_until_) {
      // Unrenewed for a whole TTL: others may hold our slots by now.
      std::vector<int> lost = leases_->Forget();
      DropSlots(lost);
      std::lock_guard<std::mutex> lock(mu_);
      metrics_.slots_lost += static_cast<int64_t>(lost.size());
    }

    if (stopping) {
      if (!shutdown_seen) {
        shutdown_seen = true;
        durable_internal::FaultPoint("shutdown.waiting");
      }
      bool drained;
      {
        std::lock_guard<std::mutex> lock(mu_);
        // A Shutdown() from inside a handler cannot wait for that handler.
        const int64_t self = shutdown_in_handler_ ? 1 : 0;
        drained = metrics_.in_flight <= self && completed_.empty() &&
                  marks_.empty() && !requeue_requested_;
      }
      if (drained || RealNanos() >= shutdown_deadline) {
        FinishMaintenance(broken);
        return;
      }
    }

    // Notifications that arrived while a statement ran sit in libpq's queue
    // (the socket no longer reads as ready): take them before sleeping.
    if (!broken) ConsumeNotifications();

    // Sleep until the next deadline, a wake-up, or a notification.
    int64_t next = std::min(next_lease, next_load);
    if (broken) next = std::min(next, next_reconnect);
    if (RealNanos() < backoff_until_) next = std::min(next, backoff_until_);
    if (stopping) next = std::min(next, RealNanos() + 10 * 1000 * 1000);
    int64_t timeout_ms = (next - RealNanos() + 999999) / 1000000;
    timeout_ms = std::max<int64_t>(0, std::min<int64_t>(timeout_ms, 1000));
    if (!broken && RealNanos() >= backoff_until_) {
      std::lock_guard<std::mutex> lock(mu_);
      if (FireReady() && !stopping) timeout_ms = 0;
      if (!completed_.empty()) timeout_ms = 0;
      if (load_requested_ && !stopping) timeout_ms = 0;
    }
    pollfd fds[2];
    fds[0] = {wake_fd_, POLLIN, 0};
    int nfds = 1;
    int sock = broken ? -1 : store_->socket();
    if (sock >= 0) {
      fds[1] = {sock, POLLIN, 0};
      nfds = 2;
    }
    if (poll(fds, nfds, static_cast<int>(timeout_ms)) > 0) {
      if (fds[0].revents & POLLIN) {
        uint64_t count;
        (void)!read(wake_fd_, &count, sizeof(count));
      }
      if (nfds == 2 && fds[1].revents != 0) ConsumeNotifications();
    }
  }
}

}  // namespace timingwheel
