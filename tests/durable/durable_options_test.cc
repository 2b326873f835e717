// Copyright 2026 The timingwheel Authors.
//
// What DurableScheduler::Create() and DurableClient::Create() refuse:
// durations that are infinite, negative or too long to hold in int64
// microseconds with headroom (each with a clear InvalidArgument), and
// connection strings whose password must never appear in the status.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "durable/durable_client.h"
#include "durable/durable_scheduler.h"
#include "durable/testing/postgres_fixture.h"
#include "gtest/gtest.h"

namespace timingwheel {
namespace {

DurableOptions Valid(const std::string& conninfo) {
  DurableOptions options;
  options.conninfo = conninfo;
  options.handler = [](const DurableTask&) { return absl::OkStatus(); };
  options.lease_ttl = absl::Seconds(2);
  options.slot_count = 16;
  return options;
}

TEST(DurableOptionsTest, EveryDurationIsCheckedWithAClearMessage) {
  auto db = durable_testing::TestDatabase::Create();
  ASSERT_TRUE(db.ok()) << db.status();
  const std::string conninfo = (*db)->conninfo();
  struct Case {
    std::string name;
    void (*mutate)(DurableOptions&);
    std::string message;
  };
  const Case cases[] = {
      {"infinite horizon",
       [](DurableOptions& o) { o.horizon = absl::InfiniteDuration(); },
       "horizon must be finite"},
      {"zero horizon",
       [](DurableOptions& o) { o.horizon = absl::ZeroDuration(); },
       "horizon must be at least"},
      {"horizon past 100 years",
       [](DurableOptions& o) { o.horizon = absl::Hours(24 * 365 * 200); },
       "horizon must be at most 100 years"},
      {"infinite lease_ttl",
       [](DurableOptions& o) { o.lease_ttl = absl::InfiniteDuration(); },
       "lease_ttl must be finite"},
      {"short lease_ttl",
       [](DurableOptions& o) { o.lease_ttl = absl::Milliseconds(99); },
       "lease_ttl must be at least 100ms"},
      {"huge lease_ttl",
       [](DurableOptions& o) { o.lease_ttl = absl::Hours(24 * 365 * 1000); },
       "lease_ttl must be at most 100 years"},
      {"negative retain_finished",
       [](DurableOptions& o) { o.retain_finished = -absl::Seconds(1); },
       "retain_finished must not be negative"},
      {"infinite retain_finished",
       [](DurableOptions& o) { o.retain_finished = absl::InfiniteDuration(); },
       "retain_finished must be finite"},
      {"forget_kinds_after below an hour",
       [](DurableOptions& o) { o.forget_kinds_after = absl::Minutes(59); },
       "forget_kinds_after must be at least 1h"},
      {"negative forget_kinds_after",
       [](DurableOptions& o) { o.forget_kinds_after = -absl::Hours(2); },
       "forget_kinds_after must be at least 1h"},
      {"infinite initial_backoff",
       [](DurableOptions& o) {
         o.retry.initial_backoff = absl::InfiniteDuration();
       },
       "retry.initial_backoff must be finite"},
      {"negative max_backoff",
       [](DurableOptions& o) { o.retry.max_backoff = -absl::Seconds(1); },
       "retry.max_backoff must not be negative"},
      {"infinite max_backoff",
       [](DurableOptions& o) {
         o.retry.max_backoff = absl::InfiniteDuration();
       },
       "retry.max_backoff must be finite"},
      {"infinite multiplier",
       [](DurableOptions& o) { o.retry.multiplier = 1.0 / 0.0; },
       "multiplier finite"},
      {"NaN multiplier",
       [](DurableOptions& o) { o.retry.multiplier = 0.0 / 0.0; },
       "multiplier finite"},
      {"no outcome writer", [](DurableOptions& o) { o.outcome_writers = 0; },
       "outcome_writers must be in [1, 3]"},
      {"too many outcome writers",
       [](DurableOptions& o) { o.outcome_writers = 4; },
       "outcome_writers must be in [1, 3]"},
  };
  for (const Case& c : cases) {
    DurableOptions options = Valid(conninfo);
    c.mutate(options);
    auto created = DurableScheduler::Create(options);
    EXPECT_TRUE(absl::IsInvalidArgument(created.status()))
        << c.name << ": " << created.status();
    EXPECT_NE(created.status().message().find(c.message), std::string::npos)
        << c.name << ": " << created.status();
  }
  // The limits accepted work: a 100-year horizon and zero retention
  // schedule and load without overflowing.
  DurableOptions options = Valid(conninfo);
  options.horizon = absl::Hours(24 * 36525);
  options.retain_finished = absl::ZeroDuration();
  auto scheduler = DurableScheduler::Create(options);
  ASSERT_TRUE(scheduler.ok()) << scheduler.status();
  EXPECT_TRUE((*scheduler)->Schedule("far", absl::Hours(24 * 365), "p").ok());
  EXPECT_TRUE((*scheduler)->Schedule("now", absl::ZeroDuration(), "p").ok());
}

TEST(DurableOptionsTest, NoStatusShowsThePassword) {
  auto admin = durable_testing::AdminConnInfo();
  ASSERT_TRUE(admin.ok()) << admin.status();
  struct Case {
    std::string conninfo;
    std::string secret;
    bool parses;
  };
  const std::vector<Case> cases = {
      {"postgresql://app:secret@[broken", "secret", false},
      {"host=/nonexistent password=hunter2 'unterminated", "hunter2", false},
      {"postgresql://app:s3cr3t@/db?host=/nonexistent&connect_timeout=2",
       "s3cr3t", true},
      {"host=/nonexistent dbname=x password='pw 42' connect_timeout=2", "pw 42",
       true},
      // A reachable server, a database that does not exist.
      {absl::StrCat(*admin, " dbname=no_such_db password=letmein"), "letmein",
       true},
  };
  for (const Case& c : cases) {
    DurableOptions options = Valid(c.conninfo);
    auto scheduler = DurableScheduler::Create(options);
    DurableClientOptions client_options;
    client_options.conninfo = c.conninfo;
    auto client = DurableClient::Create(client_options);
    for (const absl::Status& status : {scheduler.status(), client.status()}) {
      EXPECT_FALSE(status.ok()) << c.conninfo;
      EXPECT_EQ(status.ToString().find(c.secret), std::string::npos) << status;
      if (c.parses) {
        EXPECT_TRUE(absl::IsUnavailable(status)) << status;
      } else {
        EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
        EXPECT_NE(status.message().find("invalid connection string"),
                  std::string::npos)
            << status;
      }
    }
  }
}

}  // namespace
}  // namespace timingwheel
