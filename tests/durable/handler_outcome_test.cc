// Copyright 2026 The timingwheel Authors.
//
// What a handler may return besides OK and an error (handler_outcome.h):
// Snooze (again later, the attempt not counted), Discard (FAILED at once),
// RetryAfter (a failed attempt retried after the handler's delay), and the
// retry policy's jitter. The verdicts and the jitter are checked as pure
// functions, then end to end on a real PostgreSQL (bash .ci/test starts
// one).

#include "durable/handler_outcome.h"

#include <atomic>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "durable/durable_scheduler.h"
#include "durable/engine/fire_batch.h"
#include "durable/testing/pause_points.h"
#include "gtest/gtest.h"
#include "tests/durable/durable_test_fixture.h"
#include "tests/durable/test_util.h"

namespace timingwheel {
namespace durable_test {
namespace {

using durable_testing::TaskMatch;

using durable_internal::HandlerVerdict;
using durable_internal::ReadVerdict;

TEST(HandlerVerdictTest, EachOutcomeReadsBackAndPlainErrorsAreFailures) {
  EXPECT_EQ(ReadVerdict(absl::OkStatus()).kind, HandlerVerdict::kOk);
  EXPECT_EQ(ReadVerdict(absl::InternalError("x")).kind,
            HandlerVerdict::kFailure);
  HandlerVerdict snooze = ReadVerdict(Snooze(absl::Seconds(3)));
  EXPECT_EQ(snooze.kind, HandlerVerdict::kSnooze);
  EXPECT_EQ(snooze.delay, absl::Seconds(3));
  EXPECT_EQ(ReadVerdict(Discard("bad")).kind, HandlerVerdict::kDiscard);
  EXPECT_EQ(Discard("bad").message(), "bad");
  HandlerVerdict retry = ReadVerdict(RetryAfter(absl::Milliseconds(7), "429"));
  EXPECT_EQ(retry.kind, HandlerVerdict::kRetryAfter);
  EXPECT_EQ(retry.delay, absl::Milliseconds(7));
  // A negative delay is now.
  EXPECT_EQ(ReadVerdict(Snooze(-absl::Seconds(1))).delay, absl::ZeroDuration());
  EXPECT_FALSE(Snooze(absl::Seconds(1)).ok());
}

// An infinite or huge delay (the "park it" idiom) is 100 years; a
// hand-made payload with the largest number too.
TEST(HandlerVerdictTest, OutOfRangeDelaysAreClamped) {
  const absl::Duration max = kMaxVerdictDelay;
  EXPECT_EQ(max, absl::Hours(24 * 36525));
  EXPECT_EQ(ReadVerdict(Snooze(absl::InfiniteDuration())).delay, max);
  EXPECT_EQ(ReadVerdict(RetryAfter(absl::InfiniteDuration(), "x")).delay, max);
  EXPECT_EQ(ReadVerdict(RetryAfter(absl::Hours(1e9), "x")).delay, max);
  EXPECT_EQ(ReadVerdict(Snooze(-absl::InfiniteDuration())).delay,
            absl::ZeroDuration());
  absl::Status forged = absl::UnavailableError("x");
  forged.SetPayload("type.timingwheel/durable.HandlerVerdict",
                    absl::Cord("snooze 9223372036854775807"));
  EXPECT_EQ(ReadVerdict(forged).kind, HandlerVerdict::kSnooze);
  EXPECT_EQ(ReadVerdict(forged).delay, max);
  // The completion's delay, in microseconds, stays far inside int64 once
  // added to the database's now.
  durable_internal::Started started;
  started.task.id = "t";
  started.task.attempt = 1;
  RetryPolicy policy;
  policy.max_attempts = 5;
  for (const absl::Status& verdict :
       {Snooze(absl::InfiniteDuration()),
        RetryAfter(absl::InfiniteDuration(), "x")}) {
    const durable_internal::Completion c =
        durable_internal::MakeCompletion(started, verdict, policy);
    EXPECT_LE(c.backoff_us, absl::ToInt64Microseconds(max) + 1);
    EXPECT_GT(c.backoff_us, absl::ToInt64Microseconds(max) - 1);
  }
}

// An outcome records at most 16 KiB of error text, cut at a character
// boundary, and says how much was cut.
TEST(HandlerVerdictTest, LongErrorsAreCut) {
  const size_t max = kMaxOutcomeErrorBytes;
  EXPECT_EQ(durable_internal::OutcomeErrorText("short"), "short");
  const std::string exact(max, 'a');
  EXPECT_EQ(durable_internal::OutcomeErrorText(exact), exact);
  // "é" is two bytes: the cut falls inside one, and backs up before it.
  std::string text(max - 1, 'a');
  for (int i = 0; i < 1000; ++i) text += "\xc3\xa9";
  const std::string cut = durable_internal::OutcomeErrorText(text);
  EXPECT_EQ(cut.substr(0, max - 1), std::string(max - 1, 'a'));
  EXPECT_EQ(cut.substr(max - 1), " [2000 more bytes cut]");
  durable_internal::Started started;
  started.task.id = "t";
  started.task.attempt = 1;
  RetryPolicy policy;
  const durable_internal::Completion c = durable_internal::MakeCompletion(
      started, Discard(std::string(1 << 20, 'x')), policy);
  EXPECT_LT(c.error.size(), max + 64);
  EXPECT_NE(c.error.find("more bytes cut"), std::string::npos);
}

TEST(HandlerVerdictTest, RecordedErrorsShowNoInternalVerdict) {
  using durable_internal::HandlerErrorText;
  // A Discard() reason exactly as the handler gave it.
  EXPECT_EQ(HandlerErrorText(Discard("order already paid")),
            "order already paid");
  // The other verdicts: the status without the verdict's payload.
  EXPECT_EQ(HandlerErrorText(RetryAfter(absl::Seconds(1), "busy")),
            "UNAVAILABLE: busy");
  EXPECT_EQ(HandlerErrorText(absl::InternalError("boom")), "INTERNAL: boom");
  for (const absl::Status& s : {Discard("x"), RetryAfter(absl::Seconds(1), "y"),
                                Snooze(absl::Seconds(1))}) {
    EXPECT_EQ(HandlerErrorText(s).find("type.timingwheel"), std::string::npos)
        << HandlerErrorText(s);
  }
}

TEST(HandlerVerdictTest, JitterStaysWithinItsBoundsAndVaries) {
  EXPECT_EQ(durable_internal::Jittered(absl::Seconds(10), 0.0),
            absl::Seconds(10));
  std::set<int64_t> seen;
  for (int i = 0; i < 200; ++i) {
    const absl::Duration d = durable_internal::Jittered(absl::Seconds(10), 0.2);
    EXPECT_GE(d, absl::Seconds(8));
    EXPECT_LE(d, absl::Seconds(12));
    seen.insert(absl::ToInt64Microseconds(d));
  }
  EXPECT_GT(seen.size(), 100u);
}

class HandlerOutcomeTest : public DurableFixture {
 protected:
  int64_t Attempt(const std::string& id) {
    auto task = Store().Task(id);
    EXPECT_TRUE(task.ok()) << task.status();
    return task.ok() ? task->attempt : -1;
  }
  bool InState(const std::string& id, TaskState state) {
    return WaitFor([&] { return Count(TaskMatch().Id(id).State(state)) == 1; });
  }
};

TEST_F(HandlerOutcomeTest, SnoozeRunsAgainLaterWithoutSpendingAnAttempt) {
  std::atomic<int> calls{0};
  recorder_.SetResult([&](const DurableTask&) {
    return ++calls <= 3 ? Snooze(absl::Milliseconds(200)) : absl::OkStatus();
  });
  DurableOptions options = Options("a");
  options.retry.max_attempts = 1;  // A counted failure would end it.
  auto scheduler = Start(options);
  ASSERT_NE(scheduler, nullptr);
  ASSERT_TRUE(scheduler->Schedule("t", absl::Milliseconds(50), "p").ok());
  ASSERT_TRUE(Succeeded("t"));
  std::vector<Recorder::Call> runs = recorder_.calls();
  ASSERT_EQ(runs.size(), 4u);
  for (size_t i = 0; i < runs.size(); ++i) {
    EXPECT_EQ(runs[i].task.attempt, 1) << "run " << i;
    if (i > 0) {
      EXPECT_GE(runs[i].task.due, runs[i - 1].at + absl::Milliseconds(200))
          << "snoozed less than asked";
      EXPECT_GE(runs[i].at, runs[i].task.due);
    }
  }
  EXPECT_EQ(Attempt("t"), 1);
}

// A task that snoozes again and again keeps one snooze record (the
// latest) beside the record of the run that succeeded: its history does
// not grow with its snoozes.
TEST_F(HandlerOutcomeTest, ATaskThatKeepsSnoozingKeepsOneSnoozeRecord) {
  std::atomic<int> calls{0};
  recorder_.SetResult([&](const DurableTask&) -> absl::Status {
    return ++calls <= 6 ? Snooze(absl::Milliseconds(1)) : absl::OkStatus();
  });
  auto scheduler = Start(Options("a"));
  ASSERT_NE(scheduler, nullptr);
  ASSERT_TRUE(scheduler->Schedule("t", absl::ZeroDuration(), "p").ok());
  ASSERT_TRUE(Succeeded("t"));
  EXPECT_EQ(calls.load(), 7);
  auto attempts = Store().Attempts("t");
  ASSERT_TRUE(attempts.ok()) << attempts.status();
  ASSERT_EQ(attempts->size(), 2u) << "one record per snooze";
  EXPECT_EQ(attempts->front().outcome, 3);
  EXPECT_EQ(attempts->back().outcome, 0);
  EXPECT_EQ(attempts->back().attempt, 1);
}

TEST_F(HandlerOutcomeTest, DiscardFailsAtOnce) {
  recorder_.SetResult(
      [](const DurableTask&) { return Discard("unparsable payload"); });
  DurableOptions options = Options("a");
  options.retry.max_attempts = 5;
  auto scheduler = Start(options);
  ASSERT_NE(scheduler, nullptr);
  ASSERT_TRUE(scheduler->Schedule("t", absl::Milliseconds(50), "p").ok());
  ASSERT_TRUE(InState("t", TaskState::kFailed));
  EXPECT_EQ(recorder_.size(), 1u);
  auto info = scheduler->Get("t");
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_NE(info->last_error.find("unparsable payload"), std::string::npos)
      << info->last_error;
  EXPECT_EQ(info->attempt, 1);
}

TEST_F(HandlerOutcomeTest, RetryAfterUsesTheHandlersDelayAndCounts) {
  recorder_.SetResult([](const DurableTask&) {
    return RetryAfter(absl::Milliseconds(300), "server busy");
  });
  DurableOptions options = Options("a");
  options.retry.max_attempts = 3;
  options.retry.initial_backoff = absl::Hours(1);  // Never this long.
  options.retry.max_backoff = absl::Hours(1);
  auto scheduler = Start(options);
  ASSERT_NE(scheduler, nullptr);
  ASSERT_TRUE(scheduler->Schedule("t", absl::Milliseconds(50), "p").ok());
  ASSERT_TRUE(
      InState("t", TaskState::kFailed));  // FAILED after the third attempt.
  std::vector<Recorder::Call> runs = recorder_.calls();
  ASSERT_EQ(runs.size(), 3u);
  for (size_t i = 0; i < runs.size(); ++i) {
    EXPECT_EQ(runs[i].task.attempt, static_cast<int>(i) + 1);
    if (i > 0) {
      EXPECT_GE(runs[i].task.due, runs[i - 1].at + absl::Milliseconds(300));
    }
  }
  auto info = scheduler->Get("t");
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_NE(info->last_error.find("server busy"), std::string::npos);
}

TEST_F(HandlerOutcomeTest, AnAttemptPastItsTimeoutIsAskedToStop) {
  std::atomic<int> stopped{0};
  recorder_.SetResult([&](const DurableTask& task) {
    if (task.payload == "quick") return absl::OkStatus();
    // Works until asked to stop (bounded, so that a broken flag fails the
    // test instead of hanging it).
    if (!WaitFor([&] { return task.stop_requested(); }, absl::Seconds(20))) {
      return absl::InternalError("never asked to stop");
    }
    ++stopped;
    return absl::AbortedError("stopped");
  });
  DurableOptions options = Options("a");
  options.retry.max_attempts = 2;
  options.attempt_timeout = absl::Milliseconds(300);
  auto scheduler = Start(options);
  ASSERT_NE(scheduler, nullptr);
  ASSERT_TRUE(scheduler->Schedule("slow", absl::Milliseconds(50), "slow").ok());
  ASSERT_TRUE(
      scheduler->Schedule("fast", absl::Milliseconds(50), "quick").ok());
  ASSERT_TRUE(InState("slow", TaskState::kFailed));
  EXPECT_EQ(stopped.load(), 2);
  for (const Recorder::Call& call : recorder_.calls()) {
    if (call.task.id != "slow") continue;
    EXPECT_LE(call.task.deadline, call.at + absl::Milliseconds(400));
    EXPECT_GE(call.task.deadline, call.at + absl::Milliseconds(200));
  }
  auto info = scheduler->Get("slow");
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_NE(info->last_error.find("timed out"), std::string::npos)
      << info->last_error;
  EXPECT_TRUE(Succeeded("fast"));
}

TEST_F(HandlerOutcomeTest, AJitterOutsideZeroToOneIsRefused) {
  for (double jitter : {-0.1, 1.5}) {
    DurableOptions options = Options("a");
    options.retry.jitter = jitter;
    auto scheduler = DurableScheduler::Create(options);
    EXPECT_TRUE(absl::IsInvalidArgument(scheduler.status())) << jitter;
  }
  DurableOptions options = Options("a");
  options.attempt_timeout = -absl::Seconds(1);
  EXPECT_TRUE(
      absl::IsInvalidArgument(DurableScheduler::Create(options).status()));
}

// A snooze whose outcome is not yet written when the slot changes hands:
// a takeover by b re-stamps the RUNNING row, the stale snooze matches
// nothing (no record, no change), and the task runs to SUCCESS once more,
// not lost. When a takes its own slot back, its attempt still running is
// spared (StoreApi::Acquire()): the snooze is written, then the success.
TEST_F(HandlerOutcomeTest, ASnoozeRacingATakeoverLosesNothing) {
  std::atomic<int> calls{0};
  recorder_.SetResult([&](const DurableTask&) -> absl::Status {
    return ++calls == 1 ? Snooze(absl::Milliseconds(200)) : absl::OkStatus();
  });
  durable_testing::PausePoint returned("handler.returned");
  auto a = Start(Options("a"));
  ASSERT_NE(a, nullptr);
  const int64_t epoch = MaxLeaseEpoch();
  ASSERT_TRUE(a->Schedule("t", absl::ZeroDuration(), "p").ok());
  // a's handler returned Snooze; its outcome is held before it is queued.
  ASSERT_TRUE(returned.WaitReached(absl::Seconds(20)));
  EXPECT_EQ(Count(TaskMatch().Id("t").State(TaskState::kRunning)), 1);
  // The lease runs out under a (as after a stall): b, or a itself, takes
  // the slot under a new epoch and re-stamps the row.
  auto b = Start(Options("b"));
  ASSERT_NE(b, nullptr);
  ExpireLeases();
  ASSERT_TRUE(WaitFor([&] { return MaxLeaseEpoch() > epoch; }));
  auto taker = Store().Lease(0);
  ASSERT_TRUE(taker.ok()) << taker.status();
  const bool a_took_it_back = taker->owner.value_or("") == "a";
  returned.Resume();
  ASSERT_TRUE(Succeeded("t"));
  EXPECT_EQ(calls.load(), 2);
  auto attempts = Store().Attempts("t");
  ASSERT_TRUE(attempts.ok()) << attempts.status();
  if (a_took_it_back) {
    // a's snooze was written (outcome 3), then the run that succeeded.
    ASSERT_EQ(attempts->size(), 2u);
    EXPECT_EQ(attempts->front().outcome, 3);
    EXPECT_EQ(attempts->back().outcome, 0);
  } else {
    // Only the run that succeeded left a record: the stale snooze wrote
    // none.
    ASSERT_EQ(attempts->size(), 1u);
    EXPECT_EQ(attempts->front().outcome, 0);
  }
  a->Shutdown();
  b->Shutdown();
  EXPECT_EQ(calls.load(), 2);
}

}  // namespace
}  // namespace durable_test
}  // namespace timingwheel
