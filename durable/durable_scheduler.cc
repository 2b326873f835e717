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
#include <cstdlib>
#include <random>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "durable/client/request.h"
#include "durable/engine/fault_point.h"
#include "durable/engine/fire_batch.h"
#include "durable/scheduler_metrics.h"
#include "durable/scheduler_shared.h"
#include "durable/sql/pooler_probe.h"

namespace timingwheel {
namespace durable_internal {
thread_local const void* tls_handler_of = nullptr;
}  // namespace durable_internal

namespace {

using durable_internal::CheckDuration;
using durable_internal::Completion;
using durable_internal::kMaxBatch;
using durable_internal::kMaxLoad;
using durable_internal::kReconnectBackoff;
using durable_internal::RealNanos;
using durable_internal::SlotEpoch;
using durable_internal::Started;
using durable_internal::StatementKind;
using durable_internal::SteadyClock;
using durable_internal::Store;
using durable_internal::tls_handler_of;
using durable_internal::WheelEntry;

// DurableOptions::forget_kinds_after in microseconds; -1: never.
int64_t ForgetKindsAfterUs(const DurableOptions& o) {
  return o.forget_kinds_after == absl::InfiniteDuration()
             ? -1
             : absl::ToInt64Microseconds(o.forget_kinds_after);
}

std::string DefaultNodeId() {
  char host[256] = {0};
  if (gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
  std::random_device random;
  return absl::StrCat(host[0] ? host : "node", "-", getpid(), "-",
                      random() % 1000000);
}

// "timingwheel scheduler " and 16 random hex digits: one per process
// (ASCII, within application_name's 63 bytes).
std::string SessionTag() {
  std::random_device random;
  const uint64_t bits = (static_cast<uint64_t>(random()) << 32) ^ random();
  return absl::StrCat("timingwheel scheduler ",
                      absl::Hex(bits, absl::kZeroPad16));
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
  if (status.ok() && o.forget_kinds_after != absl::InfiniteDuration()) {
    status = CheckDuration("forget_kinds_after", o.forget_kinds_after,
                           absl::Hours(1));
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
  if (o.outcome_writers < 1 || o.outcome_writers > kMaxOutcomeWriters) {
    return absl::InvalidArgumentError(absl::StrCat(
        "outcome_writers must be in [1, ", kMaxOutcomeWriters, "]"));
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
  if (o.shutdown_grace < absl::ZeroDuration() ||
      o.shutdown_grace > absl::Hours(24)) {
    return absl::InvalidArgumentError(
        "shutdown_grace must be in [0, 24h] (zero: lease_ttl / 2)");
  }
  if (o.statement_timeout < absl::ZeroDuration() ||
      o.statement_timeout > o.lease_ttl / 4) {
    return absl::InvalidArgumentError(
        "statement_timeout must be in [0, lease_ttl / 4] (zero: lease_ttl "
        "/ 4), so that no statement holds a process past its lease");
  }
  return absl::OkStatus();
}

// The metrics' kind labels, in KindTable index order ("" the default).
std::vector<std::string> KindLabels(const DurableOptions& options) {
  std::vector<std::string> labels = {""};
  for (const TaskKind& kind : options.kinds) labels.push_back(kind.name);
  return labels;
}

}  // namespace

DurableScheduler::DurableScheduler(DurableOptions options)
    : options_(std::move(options)),
      kinds_(std::make_shared<durable_internal::KindTable>(options_.handler,
                                                           options_.kinds)),
      clock_(options_.timer_options.clock != nullptr
                 ? options_.timer_options.clock
                 : Clock::Real()),
      fire_queue_(options_.max_in_flight, *kinds_),
      histograms_(std::make_unique<durable_internal::SchedulerHistograms>(
          KindLabels(options_), static_cast<bool>(options_.handler))) {}

absl::StatusOr<std::unique_ptr<DurableScheduler>> DurableScheduler::Create(
    DurableOptions options) {
  return Create(std::move(options), nullptr);
}

absl::StatusOr<std::unique_ptr<DurableScheduler>> DurableScheduler::Create(
    DurableOptions options, durable_internal::StoreFactory stores) {
  absl::Status status = CheckOptions(options);
  if (!status.ok()) return status;
  if (options.node_id.empty()) options.node_id = DefaultNodeId();
  if (const char* by_slot = std::getenv("TIMINGWHEEL_FIRE_BY_SLOT");
      by_slot != nullptr && std::string(by_slot) == "1") {
    options.fire_by_slot = true;
  }
  std::unique_ptr<DurableScheduler> scheduler(
      new DurableScheduler(std::move(options)));
  scheduler->store_factory_ = std::move(stores);
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
  // One tag on every connection of this process (pg_stat_activity shows
  // it), so that a replacement taking the node id over ends them all and a
  // reconnect tells its own former session from a replacement's.
  limits.application_name = SessionTag();
  durable_internal::ClientCore::Options client_options;
  client_options.conninfo = options_.conninfo;
  client_options.slot_count = options_.slot_count;
  client_options.migrate_schema = options_.migrate_schema;
  client_options.limits = {options_.max_id_bytes, options_.max_payload_bytes};
  client_options.closed_message = "scheduler is shut down";
  client_options.session_limits = limits;
  absl::StatusOr<std::unique_ptr<durable_internal::ClientCore>> client;
  absl::StatusOr<std::unique_ptr<durable_internal::StoreApi>> store;
  // The renewals' own connection.
  absl::StatusOr<std::unique_ptr<durable_internal::StoreApi>> renew_store;
  // The outcome writers' own connections.
  std::vector<std::unique_ptr<durable_internal::StoreApi>> outcome_stores;
  absl::Status outcome_status;
  if (store_factory_ == nullptr) {
    // First, before any session setting, advisory lock or migration could
    // land on a pooled server connection that other clients inherit.
    absl::Status direct = durable_internal::CheckNotPooled(
        options_.conninfo, "a DurableScheduler");
    if (!direct.ok()) return direct;
    client = durable_internal::ClientCore::Create(std::move(client_options));
    if (!client.ok()) return client.status();
    store = Store::Connect(options_.conninfo, limits);
    if (store.ok()) renew_store = Store::Connect(options_.conninfo, limits);
    for (int i = 0; i < options_.outcome_writers && renew_store.ok() &&
                    outcome_status.ok();
         ++i) {
      absl::StatusOr<std::unique_ptr<durable_internal::StoreApi>> writer =
          Store::Connect(options_.conninfo, limits);
      if (!writer.ok()) outcome_status = writer.status();
      if (writer.ok()) outcome_stores.push_back(*std::move(writer));
    }
  } else {
    absl::StatusOr<std::unique_ptr<durable_internal::StoreApi>> client_store =
        store_factory_();
    if (!client_store.ok()) return client_store.status();
    client = durable_internal::ClientCore::CreateOver(std::move(client_options),
                                                      *std::move(client_store));
    if (!client.ok()) return client.status();
    store = store_factory_();
    if (store.ok()) renew_store = store_factory_();
    for (int i = 0; i < options_.outcome_writers && renew_store.ok() &&
                    outcome_status.ok();
         ++i) {
      absl::StatusOr<std::unique_ptr<durable_internal::StoreApi>> writer =
          store_factory_();
      if (!writer.ok()) outcome_status = writer.status();
      if (writer.ok()) outcome_stores.push_back(*std::move(writer));
    }
  }
  if (!store.ok()) return store.status();
  if (!renew_store.ok()) return renew_store.status();
  if (!outcome_status.ok()) return outcome_status;
  // A live duplicate holds it for good; a crashed predecessor's session
  // ends within a statement timeout; a stopped or hung one (stale on the
  // database's clock: no heartbeat within the TTL, no valid lease) is
  // ended. Waits up to twice the lock timeout (half a TTL by default).
  absl::StatusOr<bool> node_free = (*store)->LockNode(options_.node_id);
  if (node_free.ok() && !*node_free) {
    absl::StatusOr<bool> ended = (*store)->TakeOverNode(
        options_.node_id, absl::ToInt64Microseconds(options_.lease_ttl));
    if (!ended.ok()) return ended.status();
    node_free = (*store)->LockNode(options_.node_id);
  }
  if (!node_free.ok()) return node_free.status();
  if (!*node_free) {
    return absl::FailedPreconditionError(absl::StrCat(
        "node_id \"", options_.node_id,
        "\" is held by another live scheduler on this database (its "
        "heartbeat or a lease is younger than the lease TTL): give each "
        "scheduler its own node_id (or leave it empty for a generated one)"));
  }
  absl::Status status = (*store)->Listen();
  if (!status.ok()) return status;
  // The default kind is registered too when this scheduler runs it, so
  // that `twctl status` can flag default-kind tasks no scheduler runs.
  registered_kinds_ = kinds_->names();
  if (options_.handler) registered_kinds_.insert(registered_kinds_.begin(), "");
  absl::StatusOr<int64_t> forgotten = (*store)->RegisterKinds(
      options_.node_id, registered_kinds_, ForgetKindsAfterUs(options_));
  if (!forgotten.ok()) return forgotten.status();
  load_limit_ = kMaxLoad;
  acquire_limit_ = options_.slot_count;
  link_ = std::make_shared<AttemptLink>();
  link_->kinds = kinds_;
  link_->retry = options_.retry;
  link_->node_id = options_.node_id;
  link_->unknown_kind_delay = options_.unknown_kind_delay;
  link_->Attach(this);
  client_ = *std::move(client);
  store_ = *std::move(store);
  for (auto& writer_store : outcome_stores) {
    auto writer = std::make_unique<OutcomeWriter>();
    writer->index = static_cast<int>(outcome_writers_.size());
    writer->store = std::move(writer_store);
    outcome_writers_.push_back(std::move(writer));
  }

  // The fire by slot holds one task per owned slot in the wheel, never a
  // row: `max_pending`, which bounds the rows held, does not apply.
  TimerOptions timer_options = options_.timer_options;
  if (options_.fire_by_slot) timer_options.max_pending = 0;
  absl::StatusOr<std::unique_ptr<Timer>> timer = Timer::Create(timer_options);
  if (!timer.ok()) return timer.status();
  timer_ = *std::move(timer);
  {
    internal::MutexLock lock(mu_);
    wheel_ = std::make_unique<durable_internal::WheelMirror>(
        timer_.get(), clock_, &router_,
        /*keep_earliest=*/options_.timer_options.max_pending > 0);
  }
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
  durable_internal::LeaseRenewer::Options renewal;
  renewal.node_id = options_.node_id;
  renewal.ttl = options_.lease_ttl;
  renewal.horizon_us = absl::ToInt64Microseconds(options_.horizon);
  // A maintenance thread silent for this long is wedged (each of its
  // statements ends within the statement timeout).
  renewal.stall_limit = 2 * options_.lease_ttl + 4 * statement_timeout;
  renewal.retry_after = kReconnectBackoff;
  renewal.wake = [this] { Wake(); };
  renewal.on_lost = [this](const std::vector<SlotEpoch>& lost) {
    // The maintenance thread drops the rest (ApplyLostSlots()); it alone
    // adds slots, so an epoch that moved on is a newer acquisition.
    internal::MutexLock lock(mu_);
    for (const SlotEpoch& s : lost) {
      auto it = owned_.find(s.slot);
      if (it != owned_.end() && it->second == s.epoch) owned_.erase(it);
    }
  };
  durable_internal::SchedulerHistograms* histograms = histograms_.get();
  renewal.timed = [histograms](SteadyClock::time_point started) {
    histograms->ObserveStatement(durable_internal::StatementKind::kLeaseRound,
                                 started);
  };
  renewer_ = std::make_unique<durable_internal::LeaseRenewer>(
      std::move(renewal), *std::move(renew_store), leases_.get());

  // Take the first share and load it before returning, so that a lone
  // scheduler owns its slots when Create() returns.
  (void)renewer_->RenewNow();  // On failure, the loop's rounds retry.
  LeaseRound();
  if (options_.fire_by_slot) {
    LoadSlots();
  } else {
    LoadHorizon();
  }
  renewer_->Start();
  maintenance_ = std::thread([this] { MaintenanceLoop(); });
  for (auto& writer : outcome_writers_) {
    writer->thread =
        std::thread([this, w = writer.get()] { OutcomeWriterLoop(w); });
  }
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
  internal::MutexLock lock(mu_);
  return metrics_.in_flight > 0 ||
         (owned_executor_ != nullptr && owned_executor_->IsCurrentThread());
}

absl::Status DurableScheduler::Health() const {
  {
    internal::MutexLock lock(mu_);
    if (node_lost_) {
      return absl::FailedPreconditionError(absl::StrCat(
          "node_id \"", options_.node_id,
          "\" was taken over by a replacement while this process was "
          "stopped: it runs nothing more; shut it down"));
    }
    if (stopping_) return absl::CancelledError("Shutdown() was called");
  }
  if (renewer_ != nullptr && renewer_->stalled()) {
    return absl::DeadlineExceededError(
        "the maintenance thread has made no progress past the stall limit "
        "(2 lease TTLs and 4 statement timeouts): its leases are no longer "
        "renewed");
  }
  return absl::OkStatus();
}

DurableMetrics DurableScheduler::Metrics() const {
  internal::MutexLock lock(mu_);
  DurableMetrics m = metrics_;
  m.wheel_pending =
      (wheel_ != nullptr ? static_cast<int64_t>(wheel_->size()) : 0) +
      static_cast<int64_t>(slot_arms_.size());
  m.waiting = static_cast<int64_t>(fire_queue_.size());
  m.fire_by_slot = options_.fire_by_slot ? 1 : 0;
  m.slots_owned = static_cast<int64_t>(owned_.size());
  if (renewer_ != nullptr) {
    m.db_errors += renewer_->errors();
    m.statement_timeouts += renewer_->timeouts();
  }
  return m;
}

void DurableScheduler::Shutdown() {
  internal::MutexLock shutdown_lock(shutdown_mu_);
  {
    internal::MutexLock lock(mu_);
    if (stopping_) return;
    stopping_ = true;
    // Called from one of our handlers: do not wait for that one.
    shutdown_in_handler_ = tls_handler_of == this;
  }
  Wake();
  if (maintenance_.joinable()) maintenance_.join();
  StopOutcomeWriters();  // Stopped by the maintenance thread's end already.
  // Tasks still in the wheel stay SCHEDULED under our epoch in the table;
  // the next owner of their slots re-stamps and loads them.
  if (timer_ != nullptr) timer_->Shutdown();
  {
    internal::MutexLock lock(mu_);
    if (wheel_ != nullptr) wheel_->Clear();
    for (auto& [slot, arm] : slot_arms_) arm.task.Cancel();
    slot_arms_.clear();
  }
  // Join the owned executor only when no handler holds it (one that never
  // returns would hold Shutdown() forever); queued attempts that have not
  // started abandon at once.
  if (owned_executor_ != nullptr && !HandlersStillRunning()) {
    owned_executor_->Shutdown();
  }
  if (client_ != nullptr) client_->Close();
}

void DurableScheduler::ConfirmKinds() {
  absl::StatusOr<int64_t> forgotten = store_->RegisterKinds(
      options_.node_id, registered_kinds_, ForgetKindsAfterUs(options_));
  if (!forgotten.ok()) NoteDbError(forgotten.status());
}

}  // namespace timingwheel
