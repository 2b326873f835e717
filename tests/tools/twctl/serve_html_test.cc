// Copyright 2026 The timingwheel Authors.
//
// twctl serve's escaping, encodings, token check and flags
// (tools/twctl/serve_html.h, serve_token.h, serve_command.h). No database.

#include "tools/twctl/serve_html.h"

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tools/twctl/serve_command.h"
#include "tools/twctl/serve_token.h"

namespace timingwheel {
namespace twctl {
namespace {

TEST(ServeHtmlTest, EscapesMarkupAndQuotes) {
  EXPECT_EQ(HtmlEscape("<script>alert('x')</script>"),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;");
  EXPECT_EQ(HtmlEscape("a&b \"c\""), "a&amp;b &quot;c&quot;");
  EXPECT_EQ(HtmlEscape("plain id-42"), "plain id-42");
}

TEST(ServeHtmlTest, ShowsControlAndInvalidBytesVisibly) {
  EXPECT_EQ(HtmlEscape(std::string("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(HtmlEscape("line\nbreak\r"), "line\\x0Abreak\\x0D");
  EXPECT_EQ(HtmlEscape("x\xFFy"), "x\\xFFy");
  EXPECT_EQ(HtmlEscape("\xC3"), "\\xC3");  // Truncated sequence.
  EXPECT_EQ(HtmlEscape("h\xC3\xA9llo \xE2\x82\xAC"),
            "h\xC3\xA9llo \xE2\x82\xAC");  // Valid UTF-8 passes.
  // A backslash is doubled, so that "\x41" and "A" never look alike.
  EXPECT_EQ(HtmlEscape("\\x41"), "\\\\x41");
  EXPECT_NE(HtmlEscape("\\x00"), HtmlEscape(std::string(1, '\0')));
}

TEST(ServeHtmlTest, HexRoundTripsAnyBytes) {
  const std::string bytes("<\0\xFF\"'", 5);
  EXPECT_EQ(HexEncode(bytes), "3c00ff2227");
  EXPECT_EQ(HexDecode(HexEncode(bytes)), bytes);
  EXPECT_EQ(HexDecode("4A4b"), "JK");
  EXPECT_FALSE(HexDecode("abc").has_value());
  EXPECT_FALSE(HexDecode("zz").has_value());
  EXPECT_EQ(HexDecode(""), "");
}

TEST(ServeHtmlTest, UrlEncodesEveryReservedByte) {
  EXPECT_EQ(UrlEncode("a-b_c.d~e"), "a-b_c.d~e");
  EXPECT_EQ(UrlEncode("a b&c=d/<>"), "a%20b%26c%3Dd%2F%3C%3E");
  EXPECT_EQ(UrlEncode(std::string("\0\xFF", 2)), "%00%FF");
}

TEST(ServeHtmlTest, FormatsTimes) {
  EXPECT_EQ(ShowTime(absl::FromUnixMillis(1764637323456)),
            "2025-12-02 01:02:03.456 UTC");
  EXPECT_EQ(ShowDuration(absl::Seconds(90) + absl::Microseconds(1500)),
            "1m30.001s");
}

TEST(ServeTokenTest, ConstantTimeEqualsComparesExactly) {
  EXPECT_TRUE(ConstantTimeEquals("secret", "secret"));
  EXPECT_FALSE(ConstantTimeEquals("secret", "secreT"));
  EXPECT_FALSE(ConstantTimeEquals("secret", "secret2"));
  EXPECT_FALSE(ConstantTimeEquals("secret", "secre"));
  EXPECT_FALSE(ConstantTimeEquals("secret", ""));
  EXPECT_TRUE(ConstantTimeEquals("", ""));
  EXPECT_FALSE(ConstantTimeEquals(std::string("a\0", 2), "a"));
}

TEST(ServeTokenTest, NoConfiguredTokenAllowsNothing) {
  EXPECT_FALSE(TokenAllows("", ""));
  EXPECT_FALSE(TokenAllows("", "anything"));
  EXPECT_TRUE(TokenAllows("t0k", "t0k"));
  EXPECT_FALSE(TokenAllows("t0k", ""));
}

TEST(ServeCommandTest, ParsesListenAddresses) {
  auto v4 = ParseListen("127.0.0.1:8080");
  ASSERT_TRUE(v4.ok());
  EXPECT_EQ(v4->first, "127.0.0.1");
  EXPECT_EQ(v4->second, 8080);
  auto v6 = ParseListen("[::1]:0");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->first, "::1");
  EXPECT_EQ(v6->second, 0);
  for (const char* bad : {"8080", ":8080", "host:", "host:65536", "::1:80",
                          "[::1]80", "h:-1", "h:8x"}) {
    EXPECT_FALSE(ParseListen(bad).ok()) << bad;
  }
}

TEST(ServeCommandTest, DefaultsToLoopbackAndReadOnly) {
  auto flags = ParseServeFlags({});
  ASSERT_TRUE(flags.ok());
  EXPECT_EQ(flags->host, "127.0.0.1");
  EXPECT_EQ(flags->port, 8080);
  EXPECT_TRUE(flags->token.empty());
}

TEST(ServeCommandTest, ParsesFlags) {
  auto flags = ParseServeFlags(
      {"--listen=0.0.0.0:9000", "--token", "T", "--page-size", "10"});
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_EQ(flags->host, "0.0.0.0");
  EXPECT_EQ(flags->port, 9000);
  EXPECT_EQ(flags->token, "T");
  EXPECT_EQ(flags->page_size, 10);
  EXPECT_FALSE(ParseServeFlags({"--bogus", "1"}).ok());
  EXPECT_FALSE(ParseServeFlags({"--token"}).ok());
  EXPECT_FALSE(ParseServeFlags({"--page-size", "0"}).ok());
  EXPECT_FALSE(ParseServeFlags({"--token-file", "/nonexistent/x"}).ok());
}

TEST(ServeHtmlTest, EmptyTokenIsRefusedNotReadOnly) {
  const std::string path =
      std::string(std::getenv("TEST_TMPDIR")) + "/empty-token";
  std::ofstream(path) << "\n";
  auto from_file = ParseServeFlags({"--token-file", path});
  ASSERT_FALSE(from_file.ok());
  EXPECT_EQ(from_file.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(from_file.status().message().find("is empty"), std::string::npos);
  EXPECT_FALSE(ParseServeFlags({"--token", ""}).ok());
  std::ofstream(path) << "T2\n";
  auto good = ParseServeFlags({"--token-file", path});
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_EQ(good->token, "T2");
}

TEST(ServeHtmlTest, RelativeTimesReadForward) {
  EXPECT_EQ(ShowRelative(absl::Milliseconds(24800)), "in 24.8s");
  EXPECT_EQ(ShowRelative(-absl::Milliseconds(24800)), "24.8s ago");
  EXPECT_EQ(ShowRelative(absl::Microseconds(300)), "now");
}

}  // namespace
}  // namespace twctl
}  // namespace timingwheel
