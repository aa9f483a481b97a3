// PMI-1 wire format: parsing, formatting, value escaping, key validation.
#include "bootstrap/pmi_wire.h"

#include <gtest/gtest.h>

namespace ccmpi::bootstrap {
namespace {

TEST(PmiWire, ParsesCommandAndArgumentsInOrder) {
  PmiMessage m;
  std::string error;
  ASSERT_TRUE(parsePmiLine("cmd=put kvsname=kvs_1 key=addr-3 value=10.0.0.1:4242\n", &m, &error));
  EXPECT_EQ(m.cmd, "put");
  EXPECT_FALSE(m.multi);
  ASSERT_EQ(m.args.size(), 3u);
  EXPECT_EQ(m.args[0].first, "kvsname");
  EXPECT_EQ(m.args[1].second, "addr-3");
  ASSERT_NE(m.find("value"), nullptr);
  EXPECT_EQ(*m.find("value"), "10.0.0.1:4242");
  EXPECT_EQ(m.find("nope"), nullptr);
}

TEST(PmiWire, HydraReplies) {
  PmiMessage m;
  std::string error;
  ASSERT_TRUE(parsePmiLine("cmd=get_result rc=-1 msg=key_foo_not_found value=unknown", &m, &error));
  EXPECT_EQ(m.cmd, "get_result");
  EXPECT_EQ(*m.find("rc"), "-1");
  ASSERT_TRUE(
      parsePmiLine("cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\r\n", &m, &error));
  EXPECT_EQ(*m.find("rc"), "0");
  ASSERT_TRUE(parsePmiLine("cmd=barrier_out", &m, &error));
  EXPECT_EQ(m.cmd, "barrier_out");
  EXPECT_TRUE(m.args.empty());
}

TEST(PmiWire, ValueSplitsAtFirstEqualsAndRunsOfSpacesSeparate) {
  PmiMessage m;
  std::string error;
  ASSERT_TRUE(parsePmiLine("cmd=x   a=b=c    flag  empty=", &m, &error));
  ASSERT_EQ(m.args.size(), 3u);
  EXPECT_EQ(*m.find("a"), "b=c");
  EXPECT_EQ(*m.find("flag"), "");
  EXPECT_EQ(*m.find("empty"), "");
}

TEST(PmiWire, MultiCommand) {
  PmiMessage m;
  std::string error;
  ASSERT_TRUE(parsePmiLine("mcmd=spawn", &m, &error));
  EXPECT_TRUE(m.multi);
  EXPECT_EQ(m.cmd, "spawn");
}

TEST(PmiWire, RejectsMalformedLines) {
  PmiMessage m;
  std::string error;
  EXPECT_FALSE(parsePmiLine("", &m, &error));
  EXPECT_FALSE(parsePmiLine("\n", &m, &error));
  EXPECT_FALSE(parsePmiLine("   ", &m, &error));
  EXPECT_FALSE(parsePmiLine("key=value cmd=put", &m, &error));
  EXPECT_FALSE(parsePmiLine("cmd= key=v", &m, &error));
  EXPECT_FALSE(parsePmiLine("cmd=put =v", &m, &error));
  EXPECT_FALSE(error.empty());
}

TEST(PmiWire, FormatRoundTrips) {
  std::string line = formatPmiLine("get", {{"kvsname", "k"}, {"key", "a"}});
  EXPECT_EQ(line, "cmd=get kvsname=k key=a\n");
  EXPECT_EQ(formatPmiLine("barrier_in"), "cmd=barrier_in\n");
  PmiMessage m;
  std::string error;
  ASSERT_TRUE(parsePmiLine(line, &m, &error));
  EXPECT_EQ(m.cmd, "get");
  EXPECT_EQ(*m.find("key"), "a");
}

TEST(PmiWire, EscapeLeavesOrdinaryValuesAlone) {
  EXPECT_EQ(escapePmiValue("10.0.0.1:4242"), "10.0.0.1:4242");
  EXPECT_EQ(escapePmiValue("deadBEEF-_.,:;/"), "deadBEEF-_.,:;/");
  EXPECT_EQ(escapePmiValue(""), "");
}

TEST(PmiWire, EscapeEncodesSpecialBytes) {
  EXPECT_EQ(escapePmiValue("a b"), "a%20b");
  EXPECT_EQ(escapePmiValue("x=1"), "x%3D1");
  EXPECT_EQ(escapePmiValue("100%"), "100%25");
  EXPECT_EQ(escapePmiValue("l\n"), "l%0A");
  EXPECT_EQ(escapePmiValue(std::string("\0\xff", 2)), "%00%FF");
}

TEST(PmiWire, EscapeRoundTripsEveryByte) {
  std::string all;
  for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
  std::string wire = escapePmiValue(all);
  EXPECT_TRUE(isPmiToken(wire));
  EXPECT_EQ(wire.find(' '), std::string::npos);
  EXPECT_EQ(wire.find('='), std::string::npos);
  std::string back;
  ASSERT_TRUE(unescapePmiValue(wire, &back));
  EXPECT_EQ(back, all);
}

TEST(PmiWire, UnescapeRejectsBrokenEscapes) {
  std::string out;
  EXPECT_FALSE(unescapePmiValue("%", &out));
  EXPECT_FALSE(unescapePmiValue("ab%4", &out));
  EXPECT_FALSE(unescapePmiValue("%G1", &out));
  EXPECT_TRUE(unescapePmiValue("%4a%4A", &out));
  EXPECT_EQ(out, "JJ");
}

TEST(PmiWire, KeyValidation) {
  EXPECT_TRUE(isPmiKey("addr-12"));
  EXPECT_TRUE(isPmiKey("P2P:tcp/0.a_b"));
  EXPECT_FALSE(isPmiKey(""));
  EXPECT_FALSE(isPmiKey("a b"));
  EXPECT_FALSE(isPmiKey("a=b"));
  EXPECT_FALSE(isPmiKey("a%b"));
  EXPECT_FALSE(isPmiKey("a\nb"));
  EXPECT_FALSE(isPmiKey("caf\xc3\xa9"));
  EXPECT_TRUE(isPmiKey(std::string(63, 'k')));
  EXPECT_FALSE(isPmiKey(std::string(64, 'k')));
  EXPECT_TRUE(isPmiKey(std::string(64, 'k'), 64));
}

TEST(PmiWire, Integers) {
  int v = 0;
  EXPECT_TRUE(parsePmiInt("42", &v));
  EXPECT_EQ(v, 42);
  EXPECT_TRUE(parsePmiInt("-1", &v));
  EXPECT_EQ(v, -1);
  EXPECT_FALSE(parsePmiInt("", &v));
  EXPECT_FALSE(parsePmiInt("4x", &v));
  EXPECT_FALSE(parsePmiInt(" 4", &v));
  EXPECT_FALSE(parsePmiInt("99999999999", &v));
}

}  // namespace
}  // namespace ccmpi::bootstrap
