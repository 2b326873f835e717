// Copyright 2026 The timingwheel Authors.
//
// Every limit of the producer and admin side at its edge, on a real
// PostgreSQL: the edge value is accepted (and stored and run where it is a
// task), one past it is refused with InvalidArgument naming the field,
// before anything is written. The limits are listed in durable/README.md
// ("Limits").

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "durable/admin_store.h"
#include "durable/durable_client.h"
#include "durable/durable_scheduler.h"
#include "gtest/gtest.h"
#include "tests/durable/durable_test_fixture.h"
#include "tests/durable/test_util.h"

namespace timingwheel {
namespace durable_test {
namespace {

using durable_testing::TaskMatch;

// Refused with InvalidArgument whose message contains `field`.
#define EXPECT_REFUSED(expr, field)                                    \
  do {                                                                 \
    const absl::Status refused_status_ = (expr);                       \
    EXPECT_TRUE(absl::IsInvalidArgument(refused_status_))              \
        << #expr << ": " << refused_status_;                           \
    EXPECT_TRUE(absl::StrContains(refused_status_.message(), (field))) \
        << #expr << ": " << refused_status_;                           \
  } while (false)

// Bytes that do not compress (so that an index stores them whole).
std::string RandomBytes(size_t n) {
  std::mt19937 random(7);
  std::string bytes(n, '\0');
  for (char& c : bytes) c = static_cast<char>(random() & 0xff);
  return bytes;
}

ScheduleRequest Request(const std::string& id, absl::Duration delay) {
  ScheduleRequest request;
  request.id = id;
  request.payload = "p";
  request.delay = delay;
  return request;
}

ScheduleRequest RequestAt(const std::string& id, absl::Time due) {
  ScheduleRequest request = Request(id, absl::ZeroDuration());
  request.due = due;
  return request;
}

class DurableBoundsTest : public DurableFixture {
 protected:
  DurableClientOptions ClientOptions() {
    DurableClientOptions options;
    options.conninfo = db_->conninfo();
    options.slot_count = 1;
    return options;
  }
  int64_t Stored() { return Count(TaskMatch()); }
};

TEST_F(DurableBoundsTest, OptionLimitsAreCheckedAtCreate) {
  DurableOptions options = Options("a");
  options.max_id_bytes = kMaxIdBytes + 1;
  EXPECT_REFUSED(DurableScheduler::Create(options).status(), "max_id_bytes");
  options = Options("a");
  options.max_payload_bytes = kMaxPayloadBytes + 1;
  EXPECT_REFUSED(DurableScheduler::Create(options).status(),
                 "max_payload_bytes");
  DurableClientOptions client = ClientOptions();
  client.max_id_bytes = 0;
  EXPECT_REFUSED(DurableClient::Create(client).status(), "max_id_bytes");
  client = ClientOptions();
  client.max_payload_bytes = kMaxPayloadBytes + 1;
  EXPECT_REFUSED(DurableClient::Create(client).status(), "max_payload_bytes");
  client = ClientOptions();
  client.statement_timeout = absl::Hours(24) + absl::Nanoseconds(1);
  EXPECT_REFUSED(DurableClient::Create(client).status(), "statement_timeout");
  client.statement_timeout = absl::InfiniteDuration();
  EXPECT_REFUSED(DurableClient::Create(client).status(), "statement_timeout");
  // The edges.
  client = ClientOptions();
  client.max_id_bytes = kMaxIdBytes;
  client.max_payload_bytes = kMaxPayloadBytes;
  client.statement_timeout = absl::Hours(24);
  EXPECT_TRUE(DurableClient::Create(client).ok());
  EXPECT_EQ(Stored(), 0);
}

// An id of kMaxIdBytes incompressible bytes is stored (primary key,
// attempt history), run and cancelled like any other.
TEST_F(DurableBoundsTest, AnIdOfTheMaximumLengthIsStoredAndRun) {
  DurableOptions options = Options("a");
  options.max_id_bytes = kMaxIdBytes;
  auto scheduler = Start(options);
  ASSERT_NE(scheduler, nullptr);
  const std::string id = RandomBytes(kMaxIdBytes);
  ASSERT_TRUE(scheduler->Schedule(id, absl::ZeroDuration(), "p").ok());
  EXPECT_TRUE(Succeeded(id));
  EXPECT_REFUSED(scheduler->Schedule(RandomBytes(kMaxIdBytes + 1),
                                     absl::ZeroDuration(), "p"),
                 "task id");
  EXPECT_REFUSED(scheduler->Schedule("", absl::ZeroDuration(), "p"), "task id");
}

TEST_F(DurableBoundsTest, DueTimesAndDelaysAreBounded) {
  auto client = DurableClient::Create(ClientOptions());
  ASSERT_TRUE(client.ok()) << client.status();
  DurableClient& c = **client;
  const absl::Time limit = absl::FromUnixMicros(kDueLimitUnixMicros);
  // Accepted: the edges, and negative delays (due now).
  EXPECT_TRUE(c.Schedule(RequestAt("epoch", absl::UnixEpoch())).ok());
  EXPECT_TRUE(
      c.Schedule(RequestAt("last", limit - absl::Microseconds(1))).ok());
  EXPECT_TRUE(c.Schedule(Request("long", kMaxDelay - absl::Seconds(1))).ok());
  EXPECT_TRUE(c.Schedule(Request("neg", -absl::InfiniteDuration())).ok());
  EXPECT_EQ(Stored(), 4);
  // Refused.
  EXPECT_REFUSED(c.Schedule(RequestAt("x", limit)), "due time");
  EXPECT_REFUSED(c.Schedule(RequestAt("x", absl::InfiniteFuture())),
                 "due time");
  EXPECT_REFUSED(
      c.Schedule(RequestAt("x", absl::UnixEpoch() - absl::Microseconds(1))),
      "due time");
  EXPECT_REFUSED(c.ScheduleAt("x", absl::InfinitePast(), "p"), "due time");
  EXPECT_REFUSED(c.Schedule(Request("x", kMaxDelay)), "delay");
  EXPECT_REFUSED(c.Schedule(Request("x", absl::InfiniteDuration())), "delay");
  EXPECT_REFUSED(
      c.ScheduleOrReplace(Request("x", absl::InfiniteDuration())).status(),
      "delay");
  EXPECT_REFUSED(c.Reschedule("long", absl::InfiniteFuture()).status(),
                 "due time");
  EXPECT_REFUSED(c.RescheduleAfter("long", absl::InfiniteDuration()).status(),
                 "delay");
  EXPECT_REFUSED(
      c.RescheduleAfter(std::string(1025, 'i'), absl::Seconds(1)).status(),
      "task id");
  EXPECT_EQ(Stored(), 4);
}

TEST_F(DurableBoundsTest, PriorityKindAndPayloadAreBounded) {
  auto client = DurableClient::Create(ClientOptions());
  ASSERT_TRUE(client.ok()) << client.status();
  DurableClient& c = **client;
  ScheduleRequest request = Request("p", absl::Hours(1));
  request.priority = kMaxPriority + 1;
  EXPECT_REFUSED(c.Schedule(request), "priority");
  request.priority = kMinPriority - 1;
  EXPECT_REFUSED(c.ScheduleOrReplace(request).status(), "priority");
  request.priority = kMaxPriority;
  EXPECT_TRUE(c.Schedule(request).ok());
  request = Request("k", absl::Hours(1));
  request.kind = std::string(kMaxKindBytes + 1, 'k');
  EXPECT_FALSE(c.Schedule(request).ok());
  EXPECT_TRUE(absl::IsInvalidArgument(c.Schedule(request)));
  request = Request("big", absl::Hours(1));
  request.payload = std::string(16 << 20, 'x');  // The default limit.
  EXPECT_TRUE(c.Schedule(request).ok());
  request.id = "bigger";
  request.payload.push_back('x');
  EXPECT_REFUSED(c.Schedule(request), "max_payload_bytes");
  request.payload.clear();
  EXPECT_REFUSED(c.Schedule(request), "payload");
  EXPECT_EQ(Stored(), 2);
}

// A batch with one bad request is refused whole, naming its index, and
// nothing of it is written; a batch over kMaxBatchRequests is refused.
TEST_F(DurableBoundsTest, ABatchIsRefusedWholeNamingTheBadIndex) {
  auto client = DurableClient::Create(ClientOptions());
  ASSERT_TRUE(client.ok()) << client.status();
  DurableClient& c = **client;
  std::vector<ScheduleRequest> batch = {Request("a", absl::Hours(1)),
                                        Request("b", absl::Hours(1)),
                                        Request("c", absl::Hours(1))};
  batch[1].delay = absl::InfiniteDuration();
  EXPECT_REFUSED(c.ScheduleBatch(batch), "request 1 of the batch");
  EXPECT_REFUSED(c.ScheduleOrReplaceBatch(batch).status(),
                 "request 1 of the batch");
  EXPECT_EQ(Stored(), 0);
  std::vector<ScheduleRequest> huge(kMaxBatchRequests + 1,
                                    Request("h", absl::Hours(1)));
  EXPECT_REFUSED(c.ScheduleBatch(huge), "batch");
  EXPECT_EQ(Stored(), 0);
}

TEST_F(DurableBoundsTest, AdminCallsAreBounded) {
  auto client = DurableClient::Create(ClientOptions());
  ASSERT_TRUE(client.ok()) << client.status();
  ASSERT_TRUE((*client)->Schedule(Request("t", absl::Hours(1))).ok());
  EXPECT_REFUSED(
      AdminStore::Connect(db_->conninfo(), absl::Hours(24) + absl::Seconds(1))
          .status(),
      "statement_timeout");
  auto admin = AdminStore::Connect(db_->conninfo(), absl::Hours(24));
  ASSERT_TRUE(admin.ok()) << admin.status();
  AdminStore& a = **admin;
  const std::string too_long(kMaxIdBytes + 1, 'i');
  EXPECT_REFUSED(a.Show(too_long).status(), "task id");
  EXPECT_REFUSED(a.Cancel("").status(), "task id");
  EXPECT_REFUSED(a.Discard(too_long).status(), "task id");
  EXPECT_REFUSED(a.Retry(too_long).status(), "task id");
  EXPECT_REFUSED(
      a.Reschedule("t", AdminDue::In(absl::InfiniteDuration())).status(),
      "due.delay");
  EXPECT_REFUSED(a.Reschedule("t", AdminDue::In(kMaxDelay)).status(),
                 "due.delay");
  EXPECT_REFUSED(
      a.Reschedule("t", AdminDue::At(absl::InfiniteFuture())).status(),
      "due.at");
  EXPECT_REFUSED(
      a.Retry("t", AdminDue::At(absl::UnixEpoch() - absl::Microseconds(1)))
          .status(),
      "due.at");
  EXPECT_REFUSED(
      a.RetryMatching(TaskFilter(), AdminDue::In(absl::InfiniteDuration()))
          .status(),
      "due.delay");
  TaskFilter filter;
  filter.limit = kMaxListLimit + 1;
  EXPECT_REFUSED(a.List(filter).status(), "limit");
  filter.limit = kMaxListLimit;
  EXPECT_TRUE(a.List(filter).ok());
  // The edges are taken.
  auto moved =
      a.Reschedule("t", AdminDue::At(absl::FromUnixMicros(kDueLimitUnixMicros) -
                                     absl::Microseconds(1)));
  ASSERT_TRUE(moved.ok()) << moved.status();
  EXPECT_EQ(moved->outcome, ActionOutcome::kDone);
  moved = a.Reschedule("t", AdminDue::In(kMaxDelay - absl::Seconds(1)));
  ASSERT_TRUE(moved.ok()) << moved.status();
  EXPECT_EQ(moved->outcome, ActionOutcome::kDone);
}

}  // namespace
}  // namespace durable_test
}  // namespace timingwheel
