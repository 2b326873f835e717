// Copyright 2026 The timingwheel Authors.
//
// twctl's printing: bytes escaped and back, JSON strings escaped exactly,
// tables aligned, times in RFC 3339.

#include "tools/twctl/output.h"

#include <string>

#include "gtest/gtest.h"

namespace timingwheel {
namespace twctl {
namespace {

TEST(EscapeBytesTest, PrintableAsIsOthersHex) {
  EXPECT_EQ(EscapeBytes("order-42"), "order-42");
  EXPECT_EQ(EscapeBytes("it's \"q\""), "it's \"q\"");
  EXPECT_EQ(EscapeBytes(std::string("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(EscapeBytes("back\\slash"), "back\\\\slash");
  EXPECT_EQ(EscapeBytes("\n\t\x7f\xff"), "\\x0a\\x09\\x7f\\xff");
  EXPECT_EQ(EscapeBytes(""), "");
}

TEST(EscapeBytesTest, UnescapeRoundTripsEveryByte) {
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
  const std::string escaped = EscapeBytes(all);
  for (char c : escaped) {
    EXPECT_TRUE(c >= 0x20 && c <= 0x7e) << static_cast<int>(c);
  }
  auto back = UnescapeBytes(escaped);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, all);
  EXPECT_EQ(*UnescapeBytes("\\xAb"), "\xab");
}

TEST(KindLabelTest, DefaultKindIsADashOthersEscaped) {
  EXPECT_EQ(KindLabel(""), "-");
  EXPECT_EQ(KindLabel("email"), "email");
  EXPECT_EQ(KindLabel("caf\xc3\xa9"), "caf\\xc3\\xa9");
}

TEST(TruncatedBytesTest, LongErrorsAreCutAndMarked) {
  EXPECT_EQ(TruncatedBytes("short", 10), "short");
  EXPECT_EQ(TruncatedBytes("0123456789", 10), "0123456789");
  EXPECT_EQ(TruncatedBytes("0123456789abc", 10), "0123456789...");
  EXPECT_EQ(TruncatedBytes("line\nnext", 40), "line\\x0anext");
}

TEST(EscapeBytesTest, BadEscapesAreRefused) {
  for (const char* bad : {"\\", "a\\n", "\\x", "\\x1", "\\xzz", "end\\"}) {
    EXPECT_TRUE(absl::IsInvalidArgument(UnescapeBytes(bad).status())) << bad;
  }
}

TEST(HexBytesTest, TwoDigitsPerByte) {
  EXPECT_EQ(HexBytes(std::string("\0\x01\xff", 3)), "0001ff");
  EXPECT_EQ(HexBytes("Az"), "417a");
}

TEST(JsonQuoteTest, EscapesWhatJsonRequires) {
  EXPECT_EQ(JsonQuote("plain"), "\"plain\"");
  EXPECT_EQ(JsonQuote("q\"b\\s/"), "\"q\\\"b\\\\s/\"");
  EXPECT_EQ(JsonQuote("\n\r\t\b\f"), "\"\\n\\r\\t\\b\\f\"");
  EXPECT_EQ(JsonQuote(std::string("\0\x01\x1f\x7f", 4)),
            "\"\\u0000\\u0001\\u001f\\u007f\"");
}

TEST(JsonQuoteTest, KeepsUtf8ReplacesInvalidBytes) {
  EXPECT_EQ(JsonQuote("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
            "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
  EXPECT_EQ(JsonQuote("\xff"), "\"\\ufffd\"");
  EXPECT_EQ(JsonQuote("a\xc3"), "\"a\\ufffd\"");           // Truncated.
  EXPECT_EQ(JsonQuote("\xc0\xaf"), "\"\\ufffd\\ufffd\"");  // Overlong.
  EXPECT_EQ(JsonQuote("\xed\xa0\x80"),                     // A surrogate.
            "\"\\ufffd\\ufffd\\ufffd\"");
}

TEST(JsonWriterTest, PlacesCommasAndNests) {
  JsonWriter j;
  j.BeginObject()
      .Key("a")
      .Int(-3)
      .Key("b")
      .BeginArray()
      .Bool(true)
      .Null()
      .BeginObject()
      .EndObject()
      .String("x")
      .EndArray()
      .Key("c\"")
      .String("v")
      .EndObject();
  EXPECT_EQ(j.str(), R"({"a":-3,"b":[true,null,{},"x"],"c\"":"v"})");
}

TEST(JsonWriterTest, BytesFieldsEscapedAndHex) {
  JsonWriter j;
  j.BeginObject();
  WriteBytesField(j, "id", std::string("a\"\0", 3));
  j.EndObject();
  EXPECT_EQ(j.str(), R"({"id":"a\"\\x00","id_hex":"612200"})");
}

TEST(TableTest, AlignsColumnsAndTrimsTrailingSpace) {
  Table t({"ID", "STATE"});
  t.AddRow({"order-1", "PENDING"});
  t.AddRow({"x", ""});
  EXPECT_EQ(t.Render(),
            "ID       STATE\n"
            "order-1  PENDING\n"
            "x\n");
  Table keys({});
  keys.AddRow({"id", "a"});
  keys.AddRow({"state", "b"});
  EXPECT_EQ(keys.Render(), "id     a\nstate  b\n");
}

TEST(TimeTextTest, Rfc3339UtcMicrosAndAges) {
  const absl::Time t = absl::FromUnixMicros(1764637200123456);
  EXPECT_EQ(UtcTime(t), "2025-12-02T01:00:00.123456Z");
  EXPECT_EQ(FormatAge(absl::Milliseconds(63500)), "1m3.5s");
  EXPECT_EQ(FormatAge(absl::Microseconds(1999)), "1ms");
  EXPECT_EQ(FormatAge(absl::ZeroDuration()), "0");
}

}  // namespace
}  // namespace twctl
}  // namespace timingwheel
