// Rails (transport/rails.h): the card each rank publishes, which rails two ranks share, and
// what findRails makes of this machine's interfaces (the cluster case tests/cluster
// "rails" checks hosts with two NICs).
#include "transport/rails.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ccmpi::transport {
namespace {

Rail rail(const char* iface, const char* ip, int prefix, uint16_t port = 0, double mbits = 0) {
  Rail r;
  r.iface = iface;
  r.ip = ip;
  r.prefix = prefix;
  r.port = port;
  r.mbits = mbits;
  return r;
}

TEST(RailCard, RoundTrip) {
  const std::vector<Rail> in = {rail("r0", "198.18.0.1", 24, 4000, 100),
                                rail("r1", "198.18.1.1", 24, 4001, 25.5)};
  const std::string card = formatRailCard(in);
  std::vector<Rail> out;
  ASSERT_TRUE(parseRailCard(card, &out)) << card;
  ASSERT_EQ(out.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(out[i].iface, in[i].iface);
    EXPECT_EQ(out[i].ip, in[i].ip);
    EXPECT_EQ(out[i].prefix, in[i].prefix);
    EXPECT_EQ(out[i].port, in[i].port);
    EXPECT_EQ(out[i].mbits, in[i].mbits);
  }
}

TEST(RailCard, RejectsMalformed) {
  std::vector<Rail> out;
  for (const char* bad :
       {"", "r0", "r0 198.18.0.1/24 4000", "r0 198.18.0.1/33 4000 0", "r0 198.18.0.300/24 1 0",
        "r0 198.18.0.1/24 70000 0", "r0 198.18.0.1/24 1 -5", "r0 198.18.0.1/24 1 0 extra",
        "r0 198.18.0.1/24 1 nan", "r0 198.18.0.1/24 1 0;"}) {
    EXPECT_FALSE(parseRailCard(bad, &out)) << bad;
  }
}

TEST(Rails, MeetOnOneSubnetWithDifferentAddresses) {
  EXPECT_TRUE(railsMeet(rail("a", "198.18.1.1", 24), rail("b", "198.18.1.2", 24)));
  EXPECT_FALSE(railsMeet(rail("a", "198.18.1.1", 24), rail("b", "198.18.2.2", 24)));
  // The same address on two hosts (a bridge every host has, docker0) joins nobody.
  EXPECT_FALSE(railsMeet(rail("a", "172.17.0.1", 16), rail("b", "172.17.0.1", 16)));
  // The shorter prefix decides.
  EXPECT_TRUE(railsMeet(rail("a", "10.0.1.1", 16), rail("b", "10.0.2.2", 24)));
}

TEST(Rails, MatchSkipsRailsThePeerLacks) {
  const std::vector<Rail> mine = {rail("r0", "198.18.0.1", 24), rail("r1", "198.18.1.1", 24),
                                  rail("r2", "198.18.2.1", 24)};
  const std::vector<Rail> theirs = {rail("r0", "198.18.0.2", 24), rail("x", "198.18.2.2", 24)};
  const std::vector<int> m = matchRails(mine, theirs);
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0], 0);
  EXPECT_EQ(m[1], -1);
  EXPECT_EQ(m[2], 1);
}

TEST(Rails, FindHere) {
  std::vector<Rail> rails;
  std::string why;
  // Loopback: rail 0 alone.
  ASSERT_TRUE(findRails("", "127.0.0.1", &rails, &why)) << why;
  ASSERT_EQ(rails.size(), 1u);
  EXPECT_EQ(rails[0].ip, "127.0.0.1");
  EXPECT_EQ(rails[0].iface, "lo");
  // A list naming an interface that does not exist is refused with the reason.
  EXPECT_FALSE(findRails("lo,nosuchif0", "127.0.0.1", &rails, &why));
  EXPECT_NE(why.find("nosuchif0"), std::string::npos) << why;
  // Two names on one subnet are refused.
  EXPECT_FALSE(findRails("lo,lo", "127.0.0.1", &rails, &why));
  EXPECT_NE(why.find("subnet"), std::string::npos) << why;
}

// The ranges cover the message exactly once, in order, page-aligned at the cuts.
void checkCover(const std::vector<StripeCut>& cuts, uint64_t bytes) {
  uint64_t at = 0;
  for (size_t i = 0; i < cuts.size(); ++i) {
    EXPECT_EQ(cuts[i].lo, at);
    EXPECT_GT(cuts[i].hi, cuts[i].lo);
    if (i + 1 < cuts.size()) {
      EXPECT_EQ(cuts[i].hi % 4096, 0u);
    }
    at = cuts[i].hi;
  }
  EXPECT_EQ(at, bytes);
}

TEST(Stripes, InProportionToTheRates) {
  const uint64_t n = (8u << 20) + 12345;
  // Equal rates: halves.
  auto cuts = stripeCuts(n, {100, 100});
  ASSERT_EQ(cuts.size(), 2u);
  checkCover(cuts, n);
  EXPECT_NEAR(static_cast<double>(cuts[0].hi), n / 2.0, 4096);
  // 1 Gbit/s beside 100 Mbit/s: 10/11 and 1/11.
  cuts = stripeCuts(n, {1000, 100});
  ASSERT_EQ(cuts.size(), 2u);
  checkCover(cuts, n);
  EXPECT_NEAR(static_cast<double>(cuts[0].hi), n * 10.0 / 11, 4096);
  EXPECT_EQ(cuts[1].rail, 1u);
  // Three rails, 25/50/25.
  cuts = stripeCuts(n, {25, 50, 25});
  ASSERT_EQ(cuts.size(), 3u);
  checkCover(cuts, n);
  EXPECT_NEAR(static_cast<double>(cuts[1].hi - cuts[1].lo), n / 2.0, 8192);
  // A rate unknown: equal shares.
  cuts = stripeCuts(n, {0, 1000});
  ASSERT_EQ(cuts.size(), 2u);
  checkCover(cuts, n);
  EXPECT_NEAR(static_cast<double>(cuts[0].hi), n / 2.0, 4096);
}

TEST(Stripes, SmallAndLopsided) {
  // Less than a page for the first rail: it gets nothing, the other takes all.
  auto cuts = stripeCuts(6000, {1, 1});
  ASSERT_EQ(cuts.size(), 1u);
  EXPECT_EQ(cuts[0].rail, 1u);
  checkCover(cuts, 6000);
  cuts = stripeCuts(1u << 20, {1, 1e6});
  checkCover(cuts, 1u << 20);
  EXPECT_EQ(cuts.back().rail, 1u);
  cuts = stripeCuts(1u << 20, {100});
  ASSERT_EQ(cuts.size(), 1u);
  checkCover(cuts, 1u << 20);
  EXPECT_TRUE(stripeCuts(0, {1, 1}).empty());
}

}  // namespace
}  // namespace ccmpi::transport
