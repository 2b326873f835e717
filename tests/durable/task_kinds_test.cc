// Copyright 2026 The timingwheel Authors.
//
// Task kinds, priorities and attempt records against a real server: each
// kind runs its own handler within its own limit, an unknown kind is
// refused when scheduled and snoozed (never lost) when an owner without
// its handler fires it, higher priorities start first among due tasks, and
// every written outcome leaves one attempt record that goes with its task.

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "durable/admin_store.h"
#include "durable/durable_client.h"
#include "durable/durable_scheduler.h"
#include "gtest/gtest.h"
#include "tests/durable/durable_test_fixture.h"
#include "tests/durable/test_util.h"
#include "timer/executor.h"

namespace timingwheel {
namespace durable_test {
namespace {

using durable_testing::TaskMatch;

class TaskKindsTest : public DurableFixture {
 protected:
  ScheduleRequest Request(const std::string& id, const std::string& kind,
                          int priority = 0) {
    ScheduleRequest r;
    r.id = id;
    r.payload = "p";
    r.kind = kind;
    r.priority = priority;
    return r;
  }
  TaskKind Kind(const std::string& name, Recorder* recorder,
                int max_in_flight = 0) {
    TaskKind kind;
    kind.name = name;
    kind.handler = recorder->Handler();
    kind.max_in_flight = max_in_flight;
    return kind;
  }
  std::string LastError(const std::string& id) {
    auto task = Store().Task(id);
    return task.ok() ? task->last_error.value_or("") : task.status().ToString();
  }
};

TEST_F(TaskKindsTest, EachKindRunsItsOwnHandler) {
  Recorder email, sms;
  DurableOptions options = Options("a");
  options.kinds = {Kind("email", &email), Kind("sms", &sms)};
  auto scheduler = Start(options);
  ASSERT_NE(scheduler, nullptr);
  ASSERT_TRUE(scheduler
                  ->ScheduleBatch({Request("e1", "email"), Request("s1", "sms"),
                                   Request("d1", "")})
                  .ok());
  ASSERT_TRUE(Succeeded("e1"));
  ASSERT_TRUE(Succeeded("s1"));
  ASSERT_TRUE(Succeeded("d1"));
  ASSERT_EQ(email.size(), 1u);
  ASSERT_EQ(sms.size(), 1u);
  ASSERT_EQ(recorder_.size(), 1u);
  EXPECT_EQ(email.calls()[0].task.id, "e1");
  EXPECT_EQ(email.calls()[0].task.kind, "email");
  EXPECT_EQ(sms.calls()[0].task.kind, "sms");
  EXPECT_EQ(recorder_.calls()[0].task.kind, "");
  auto info = scheduler->Get("e1");
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->kind, "email");
  // Registered for every client of the store (the default kind too).
  EXPECT_EQ(Value(Store().CountKinds("a")), 3);
}

TEST_F(TaskKindsTest, AnUnknownKindIsRefusedWhenScheduledAndNothingIsStored) {
  auto scheduler = Start(Options("a"));
  ASSERT_NE(scheduler, nullptr);
  absl::Status status =
      scheduler->ScheduleBatch({Request("ok", ""), Request("x", "nobody")});
  EXPECT_TRUE(absl::IsNotFound(status)) << status;
  EXPECT_NE(status.message().find("\"nobody\""), std::string::npos) << status;
  EXPECT_EQ(Count(), 0);  // Neither row of the batch.
  // The client, the replacement and a transaction of the caller's say the
  // same.
  DurableClientOptions client_options;
  client_options.conninfo = db_->conninfo();
  client_options.slot_count = Options("c").slot_count;
  auto client = DurableClient::Create(client_options);
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_TRUE(
      absl::IsNotFound((*client)->ScheduleBatch({Request("y", "nobody")})));
  EXPECT_TRUE(absl::IsNotFound(
      (*client)->ScheduleOrReplace(Request("z", "nobody")).status()));
  EXPECT_EQ(Count(), 0);
  // Bad kinds and priorities are bad input.
  EXPECT_TRUE(absl::IsInvalidArgument(
      scheduler->ScheduleBatch({Request("c", "tab\there")})));
  EXPECT_TRUE(absl::IsInvalidArgument(
      scheduler->ScheduleBatch({Request("l", std::string(129, 'k'))})));
  EXPECT_TRUE(absl::IsInvalidArgument(
      scheduler->ScheduleBatch({Request("p", "", 40000)})));
  EXPECT_EQ(Count(), 0);
}

TEST_F(TaskKindsTest, OptionsWithBadKindsAreRefused) {
  Recorder r;
  DurableOptions options = Options("a");
  options.kinds = {Kind("email", &r), Kind("email", &r)};
  EXPECT_TRUE(
      absl::IsInvalidArgument(DurableScheduler::Create(options).status()));
  options.kinds = {Kind("", &r)};
  EXPECT_TRUE(
      absl::IsInvalidArgument(DurableScheduler::Create(options).status()));
  options.kinds = {Kind("email", &r, -1)};
  EXPECT_TRUE(
      absl::IsInvalidArgument(DurableScheduler::Create(options).status()));
  options.kinds = {Kind("email", &r)};
  options.kinds[0].handler = nullptr;
  EXPECT_TRUE(
      absl::IsInvalidArgument(DurableScheduler::Create(options).status()));
  // Kinds alone, without a default handler, are enough.
  options.kinds = {Kind("email", &r)};
  options.handler = nullptr;
  auto scheduler = DurableScheduler::Create(options);
  EXPECT_TRUE(scheduler.ok()) << scheduler.status();
}

// A scheduler registers the default kind only when it runs it, so that
// an operator can tell default-kind tasks no scheduler will ever run.
TEST_F(TaskKindsTest, TheDefaultKindIsRegisteredOnlyWithADefaultHandler) {
  Recorder email;
  const std::string registered = "SELECT count(*) FROM tw_kind WHERE kind = ''";
  {
    DurableOptions options = Options("kinds-only");
    options.handler = nullptr;
    options.kinds = {Kind("email", &email)};
    auto scheduler = Start(options);
    ASSERT_NE(scheduler, nullptr);
    EXPECT_EQ(Query(registered), 0);
    EXPECT_EQ(Query("SELECT count(*) FROM tw_kind WHERE kind = 'email'"), 1);
    scheduler->Shutdown();
  }
  auto scheduler = Start(Options("default"));
  ASSERT_NE(scheduler, nullptr);
  EXPECT_EQ(Query(registered), 1);
  EXPECT_EQ(Query("SELECT count(*) FROM tw_kind WHERE kind = '' AND "
                  "node_id = 'default'"),
            1);
}

// A kind that another scheduler registered reaches an owner without its
// handler (a rolling deploy): snoozed with the reason, its attempt not
// counted, and run once an owner with the handler holds the slot.
TEST_F(TaskKindsTest, AKindWithoutAHandlerHereIsSnoozedNotLost) {
  Recorder email;
  {
    DurableOptions options = Options("registrar");
    options.kinds = {Kind("email", &email)};
    auto registrar = Start(options);
    ASSERT_NE(registrar, nullptr);
    registrar->Shutdown();
  }
  DurableOptions without = Options("without");
  without.unknown_kind_delay = absl::Milliseconds(300);
  without.retry.max_attempts = 1;  // A counted failure would end it.
  auto old_node = Start(without);
  ASSERT_NE(old_node, nullptr);
  ASSERT_TRUE(old_node->Schedule(Request("e", "email")).ok());
  ASSERT_TRUE(WaitFor([&] { return old_node->Metrics().unknown_kind >= 2; }));
  EXPECT_EQ(email.size(), 0u);
  EXPECT_EQ(recorder_.size(), 0u);  // Never the default kind's handler.
  EXPECT_EQ(
      Count(TaskMatch().Id("e").StateBefore(TaskState::kRunning).Attempt(0)),
      1);
  const std::string error = LastError("e");
  EXPECT_NE(error.find("no handler for task kind \"email\" on node without"),
            std::string::npos)
      << error;
  // The kind is registered (by a scheduler gone now); what `twctl status`
  // flags is the task put off for want of a handler. Read once no
  // scheduler runs: else the task, due again every 300 ms, may be in its
  // next (RUNNING) attempt when the status reads it.
  old_node->Shutdown();
  auto admin = AdminStore::Connect(db_->conninfo());
  ASSERT_TRUE(admin.ok()) << admin.status();
  auto status = (*admin)->Status();
  ASSERT_TRUE(status.ok()) << status.status();
  bool seen = false;
  for (const AdminKind& k : status->kinds) {
    if (k.kind != "email") continue;
    seen = true;
    EXPECT_TRUE(k.registered);
    EXPECT_EQ(k.put_off_no_handler, 1);
  }
  EXPECT_TRUE(seen);

  DurableOptions with = Options("with");
  with.kinds = {Kind("email", &email)};
  auto new_node = Start(with);
  ASSERT_NE(new_node, nullptr);
  ASSERT_TRUE(Succeeded("e"));
  ASSERT_EQ(email.size(), 1u);
  EXPECT_EQ(email.calls()[0].task.attempt, 1);
}

// A kind at its limit waits without holding up the other kinds.
TEST_F(TaskKindsTest, AKindsLimitHoldsOnlyThatKind) {
  Gate gate;
  std::atomic<int> slow_running{0}, slow_most{0};
  TaskKind slow;
  slow.name = "slow";
  slow.max_in_flight = 1;
  slow.handler = [&](const DurableTask&) {
    const int now = ++slow_running;
    int most = slow_most.load();
    while (now > most && !slow_most.compare_exchange_weak(most, now)) {
    }
    gate.Wait();
    --slow_running;
    return absl::OkStatus();
  };
  FourThreads threads;
  DurableOptions options = Options("a");
  options.kinds = {slow};
  options.executor = &threads;
  options.max_in_flight = 4;
  auto scheduler = Start(options);
  ASSERT_NE(scheduler, nullptr);
  ASSERT_TRUE(scheduler
                  ->ScheduleBatch({Request("s1", "slow"), Request("s2", "slow"),
                                   Request("s3", "slow")})
                  .ok());
  ASSERT_TRUE(WaitFor([&] { return slow_running.load() == 1; }));
  // With the slow kind at its limit (two of its tasks waiting), default
  // tasks still run, one after another.
  ASSERT_TRUE(
      scheduler->ScheduleBatch({Request("d1", ""), Request("d2", "")}).ok());
  ASSERT_TRUE(Succeeded("d1"));
  ASSERT_TRUE(Succeeded("d2"));
  // The fire queue's count (the fire by slot leaves them in the table).
  if (!scheduler->Metrics().fire_by_slot) {
    EXPECT_EQ(scheduler->Metrics().waiting, 2);
  }
  gate.Open();
  for (const char* id : {"s1", "s2", "s3"}) ASSERT_TRUE(Succeeded(id));
  EXPECT_EQ(slow_most.load(), 1);
}

// With the only handler slot taken, the tasks that become due wait; when
// it frees they start highest priority first.
TEST_F(TaskKindsTest, HigherPrioritiesStartFirstAmongDueTasks) {
  Gate gate;
  std::atomic<bool> gate_entered{false};
  std::mutex mu;
  std::vector<std::string> order;
  recorder_.SetResult([&](const DurableTask& task) {
    if (task.id == "gate") {
      gate_entered = true;
      gate.Wait();
    } else {
      std::lock_guard<std::mutex> lock(mu);
      order.push_back(task.id);
    }
    return absl::OkStatus();
  });
  DurableOptions options = Options("a");
  options.max_in_flight = 1;
  auto scheduler = Start(options);
  ASSERT_NE(scheduler, nullptr);
  ASSERT_TRUE(scheduler->ScheduleBatch({Request("gate", "")}).ok());
  ASSERT_TRUE(WaitFor([&] { return gate_entered.load(); }));
  ASSERT_TRUE(
      scheduler
          ->ScheduleBatch({Request("p0", "", 0), Request("p5", "", 5),
                           Request("m3", "", -3), Request("p10", "", 10)})
          .ok());
  ASSERT_TRUE(WaitFor([&] { return scheduler->Metrics().waiting == 4; }));
  gate.Open();
  for (const char* id : {"p0", "p5", "m3", "p10"}) ASSERT_TRUE(Succeeded(id));
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(order, (std::vector<std::string>{"p10", "p5", "p0", "m3"}));
}

TEST_F(TaskKindsTest, AttemptsAreRecordedInOrder) {
  std::atomic<int> calls{0};
  recorder_.SetResult([&](const DurableTask&) -> absl::Status {
    const int call = ++calls;
    if (call == 1) return absl::UnavailableError("first <b>failure</b>");
    if (call == 2) return Snooze(absl::Milliseconds(50));
    if (call == 3) return absl::InternalError("second failure");
    return absl::OkStatus();
  });
  DurableOptions options = Options("recorder-node");
  options.retry.max_attempts = 3;
  options.retry.initial_backoff = absl::Milliseconds(50);
  auto scheduler = Start(options);
  ASSERT_NE(scheduler, nullptr);
  ASSERT_TRUE(scheduler->Schedule("t", absl::ZeroDuration(), "p").ok());
  ASSERT_TRUE(Succeeded("t"));
  auto attempts = Store().Attempts("t");
  ASSERT_TRUE(attempts.ok()) << attempts.status();
  std::vector<std::string> rows;
  for (const durable_testing::AttemptRow& a : *attempts) {
    rows.push_back(
        absl::StrCat(a.attempt, ":", a.outcome, ":", a.node_id, ":",
                     a.started_us <= a.finished_us ? "true" : "false", ":",
                     a.error.value_or("-")));
  }
  // RETRIED, SNOOZED (the same attempt number again), RETRIED, SUCCEEDED.
  EXPECT_EQ(absl::StrJoin(rows, "|"),
            "1:1:recorder-node:true:UNAVAILABLE: first <b>failure</b>|"
            "2:3:recorder-node:true:-|"
            "2:1:recorder-node:true:INTERNAL: second failure|"
            "3:0:recorder-node:true:-");
  // The records go with the task's row.
  ASSERT_TRUE(scheduler->Schedule("u", absl::ZeroDuration(), "p").ok());
  ASSERT_TRUE(Succeeded("u"));
  ASSERT_TRUE(Store().DeleteTask("t").ok());
  EXPECT_EQ(Value(Store().CountAttempts("t")), 0);
  EXPECT_EQ(Value(Store().CountAttempts("u")), 1);
}

// A kind whose schedulers have all been gone for forget_kinds_after is
// forgotten by the next scheduler to start: scheduling it is refused, and
// its waiting task stays; with InfiniteDuration nothing is forgotten.
TEST_F(TaskKindsTest, AKindNoSchedulerRegisteredForLongIsForgotten) {
  Recorder email, sms;
  const std::string age =
      "UPDATE tw_kind SET registered_us = tw_now_us() - 7200000000";
  {
    DurableOptions options = Options("old");
    options.kinds = {Kind("email", &email), Kind("sms", &sms)};
    auto scheduler = Start(options);
    ASSERT_NE(scheduler, nullptr);
    ScheduleRequest later = Request("sms-later", "sms");
    later.delay = absl::Hours(1);
    ASSERT_TRUE(scheduler->ScheduleBatch({later}).ok());
    scheduler->Shutdown();
  }
  Exec(age);
  {
    DurableOptions options = Options("keeper");
    options.forget_kinds_after = absl::InfiniteDuration();
    auto scheduler = Start(options);
    ASSERT_NE(scheduler, nullptr);
    EXPECT_EQ(Query("SELECT count(*) FROM tw_kind WHERE kind = 'sms'"), 1);
    scheduler->Shutdown();
  }
  DurableOptions options = Options("new");
  options.kinds = {Kind("email", &email)};
  options.forget_kinds_after = absl::Hours(1);
  auto scheduler = Start(options);
  ASSERT_NE(scheduler, nullptr);
  EXPECT_EQ(Query("SELECT count(*) FROM tw_kind WHERE kind = 'sms'"), 0);
  EXPECT_EQ(Query("SELECT count(*) FROM tw_kind WHERE kind IN ('', 'email')"),
            2);
  absl::Status status = scheduler->ScheduleBatch({Request("sms-2", "sms")});
  EXPECT_TRUE(absl::IsNotFound(status)) << status;
  EXPECT_EQ(Query("SELECT count(*) FROM tw_timer WHERE kind = 'sms'"), 1);
  EXPECT_TRUE(scheduler->ScheduleBatch({Request("email-2", "email")}).ok());
}

// A scheduler confirms its kinds again as soon as it has reconnected (a
// failover, a restart of the server): the registry's time moves although
// the 10-minute confirmation is far off.
TEST_F(TaskKindsTest, KindsAreConfirmedAgainAfterAReconnect) {
  Recorder email;
  DurableOptions options = Options("a");
  options.kinds = {Kind("email", &email)};
  auto scheduler = Start(options);
  ASSERT_NE(scheduler, nullptr);
  Exec("UPDATE tw_kind SET registered_us = tw_now_us() - 7200000000");
  const std::string aged =
      "SELECT count(*) FROM tw_kind WHERE kind = 'email' "
      "AND registered_us < tw_now_us() - 3600000000";
  ASSERT_EQ(Query(aged), 1);
  Query(
      "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
      "WHERE datname = current_database() AND pid <> pg_backend_pid()");
  ASSERT_TRUE(WaitFor([&] { return scheduler->Metrics().reconnects >= 1; }));
  EXPECT_TRUE(WaitFor([&] { return Query(aged) == 0; }))
      << "the kind was not confirmed after the reconnect";
}

TEST_F(TaskKindsTest, WithoutHistoryNoAttemptIsRecorded) {
  DurableOptions options = Options("a");
  options.attempt_history = false;
  auto scheduler = Start(options);
  ASSERT_NE(scheduler, nullptr);
  ASSERT_TRUE(scheduler->Schedule("t", absl::ZeroDuration(), "p").ok());
  ASSERT_TRUE(Succeeded("t"));
  EXPECT_EQ(Value(Store().CountAttempts()), 0);
}

// An identical retry is identical in kind and priority too; a replacement
// takes the request's.
TEST_F(TaskKindsTest, KindAndPriorityArePartOfATasksIdentity) {
  Recorder email;
  DurableOptions options = Options("a");
  options.kinds = {Kind("email", &email)};
  options.horizon = absl::Seconds(1);
  auto scheduler = Start(options);
  ASSERT_NE(scheduler, nullptr);
  ScheduleRequest later = Request("t", "email", 2);
  later.delay = absl::Hours(1);
  ASSERT_TRUE(scheduler->ScheduleBatch({later}).ok());
  EXPECT_TRUE(scheduler->ScheduleBatch({later}).ok());  // Identical.
  ScheduleRequest other_kind = later;
  other_kind.kind = "";
  EXPECT_TRUE(absl::IsAlreadyExists(scheduler->ScheduleBatch({other_kind})));
  ScheduleRequest other_priority = later;
  other_priority.priority = 3;
  EXPECT_TRUE(
      absl::IsAlreadyExists(scheduler->ScheduleBatch({other_priority})));
  auto replaced = scheduler->ScheduleOrReplace(other_kind);
  ASSERT_TRUE(replaced.ok()) << replaced.status();
  EXPECT_EQ(*replaced, ScheduleOutcome::kReplaced);
  auto info = scheduler->Get("t");
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->kind, "");
  EXPECT_EQ(info->priority, 2);
  // A reschedule keeps them.
  ASSERT_TRUE(scheduler->ScheduleOrReplace(later).ok());
  ASSERT_TRUE(scheduler->RescheduleAfter("t", absl::Milliseconds(10)).ok());
  ASSERT_TRUE(WaitFor([&] { return email.size() == 1; }));
  EXPECT_EQ(email.calls()[0].task.priority, 2);
}

}  // namespace
}  // namespace durable_test
}  // namespace timingwheel
