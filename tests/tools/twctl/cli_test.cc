// Copyright 2026 The timingwheel Authors.
//
// twctl's command line: flags anywhere, values in both spellings, the
// errors that exit 1, statuses to exit codes, and time arguments.

#include "tools/twctl/cli.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace timingwheel {
namespace twctl {
namespace {

std::optional<CommandSpec> Spec(const std::string& name) {
  if (name == "list") return CommandSpec{{"limit", "state"}, {}, 0, 0};
  if (name == "migrate") return CommandSpec{{}, {"dry-run"}, 0, 0};
  if (name == "show") return CommandSpec{{}, {}, 1, 1};
  if (name == "help") return CommandSpec{{}, {}, 0, 1};
  return std::nullopt;
}

absl::StatusOr<Args> Parse(std::vector<std::string> argv) {
  return ParseArgs(argv, Spec);
}

TEST(ParseArgsTest, FlagsAnywhereBothSpellings) {
  auto args = Parse({"--json", "list", "--limit", "5", "--state=FAILED",
                     "--db=host=/x dbname=y"});
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->command, "list");
  EXPECT_TRUE(args->json);
  EXPECT_EQ(args->Value("limit"), "5");
  EXPECT_EQ(args->Value("state"), "FAILED");
  EXPECT_EQ(args->db, "host=/x dbname=y");
  EXPECT_FALSE(args->Value("prefix").has_value());
}

TEST(ParseArgsTest, PositionalsAndDoubleDash) {
  auto args = Parse({"show", "--", "--weird-id"});
  ASSERT_TRUE(args.ok()) << args.status();
  ASSERT_EQ(args->positional.size(), 1u);
  EXPECT_EQ(args->positional[0], "--weird-id");
  args = Parse({"migrate", "--dry-run"});
  ASSERT_TRUE(args.ok());
  EXPECT_TRUE(args->Has("dry-run"));
}

TEST(ParseArgsTest, UsageErrors) {
  for (const std::vector<std::string>& bad :
       std::vector<std::vector<std::string>>{{"lsit"},
                                             {"list", "--nope"},
                                             {"list", "--limit"},
                                             {"show"},
                                             {"show", "a", "b"},
                                             {"migrate", "--dry-run=yes"},
                                             {"--json=1", "list"},
                                             {"list", "--dry-run"}}) {
    auto args = Parse(bad);
    EXPECT_TRUE(absl::IsInvalidArgument(args.status()))
        << bad[0] << " " << (bad.size() > 1 ? bad[1] : "");
    EXPECT_EQ(ExitCodeFor(args.status()), kExitUsage);
  }
}

// The words other tools use name the command twctl has for them.
TEST(ParseArgsTest, AnotherToolsWordNamesTwctlsCommand) {
  auto args = Parse({"get", "x"});
  EXPECT_TRUE(absl::IsInvalidArgument(args.status()));
  EXPECT_NE(args.status().message().find("did you mean `twctl show`"),
            std::string::npos)
      << args.status();
  args = Parse({"lsit"});
  EXPECT_EQ(args.status().message().find("did you mean"), std::string::npos)
      << args.status();
}

TEST(ParseArgsTest, HelpNeverFails) {
  EXPECT_TRUE(Parse({}).ok());
  EXPECT_TRUE(Parse({"help"}).ok());
  EXPECT_TRUE(Parse({"show", "--help"}).ok());  // No id needed for help.
}

TEST(ExitCodeForTest, StableCodes) {
  EXPECT_EQ(ExitCodeFor(absl::OkStatus()), 0);
  EXPECT_EQ(ExitCodeFor(absl::InvalidArgumentError("")), 1);
  EXPECT_EQ(ExitCodeFor(absl::UnavailableError("")), 2);
  EXPECT_EQ(ExitCodeFor(absl::NotFoundError("")), 3);
  EXPECT_EQ(ExitCodeFor(absl::FailedPreconditionError("")), 4);
  EXPECT_EQ(ExitCodeFor(absl::InternalError("")), 5);
  EXPECT_EQ(ExitCodeFor(absl::DeadlineExceededError("")), 5);
  EXPECT_EQ(ExitCodeFor(absl::PermissionDeniedError("")), 6);
}

TEST(ParseTimeArgTest, RelativeAndAbsolute) {
  const absl::Time now = absl::FromUnixSeconds(1'000'000);
  auto t = ParseTimeArg("+5m");
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(t->relative);
  EXPECT_EQ(t->Resolve(now), now + absl::Minutes(5));
  t = ParseTimeArg("-1h30m");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->Resolve(now), now - absl::Minutes(90));
  t = ParseTimeArg("now");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->Resolve(now), now);
  t = ParseTimeArg("2026-12-02T10:00:00Z");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_FALSE(t->relative);
  EXPECT_EQ(t->at, absl::FromUnixSeconds(1796205600));
  t = ParseTimeArg("2026-12-02T11:00:00.5+01:00");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->at, absl::FromUnixSeconds(1796205600) + absl::Milliseconds(500));
}

TEST(ParseTimeArgTest, BadTimesAreUsageErrors) {
  for (const char* bad :
       {"", "5m", "+", "+-5m", "tomorrow", "2026-12-02", "+5 minutes"}) {
    EXPECT_TRUE(absl::IsInvalidArgument(ParseTimeArg(bad).status())) << bad;
  }
}

TEST(ParseDurationArgTest, PositiveDurations) {
  EXPECT_EQ(*ParseDurationArg("90s"), absl::Seconds(90));
  EXPECT_EQ(*ParseDurationArg("+1h30m"), absl::Minutes(90));
  EXPECT_FALSE(ParseDurationArg("-5m").ok());
  EXPECT_FALSE(ParseDurationArg("soon").ok());
}

}  // namespace
}  // namespace twctl
}  // namespace timingwheel
