// The link rate: cards and their combination (bootstrap/link_card.h), the declared / found /
// assumed figure (base/link.h) and what the finder says where there is nothing to find
// (transport/link_finder.h; the shapers themselves are checked on the emulated cluster,
// tests/cluster).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <vector>

#include "base/link.h"
#include "base/tunables.h"
#include "bootstrap/link_card.h"
#include "transport/link_finder.h"
#include "transport/link_probe.h"

namespace ccmpi {
namespace {

void reloadTunables() {
  for (TunableBase* t : allTunables()) t->reload();
}

TEST(LinkCard, RoundTrip) {
  double v = -1;
  std::string how;
  ASSERT_TRUE(bootstrap::parseLinkCard(bootstrap::formatLinkCard(25, "tbf qdisc on r0"), &v, &how));
  EXPECT_EQ(v, 25);
  EXPECT_EQ(how, "tbf qdisc on r0");
  ASSERT_TRUE(bootstrap::parseLinkCard(bootstrap::formatLinkCard(12.5, ""), &v, &how));
  EXPECT_EQ(v, 12.5);
  EXPECT_EQ(how, "");
  ASSERT_TRUE(bootstrap::parseLinkCard("0", &v, &how));
  EXPECT_EQ(v, 0);
  // A negative rate is written as 0 (nothing found).
  ASSERT_TRUE(bootstrap::parseLinkCard(bootstrap::formatLinkCard(-3, "x"), &v, &how));
  EXPECT_EQ(v, 0);
  for (const char* bad : {"", "x 25", "-1 neg", "25x trailing", "nan how", "inf how"})
    EXPECT_FALSE(bootstrap::parseLinkCard(bad, &v, &how)) << bad;
}

TEST(LinkCard, CombineTakesTheSlowestFound) {
  double v = -1;
  std::string how;
  ASSERT_TRUE(bootstrap::parseLinkCard(
      bootstrap::combineLinkCards(
          {"1000 NIC speed of eth0", "100 htb qdisc on r0 at h2", "10000 NIC speed of eth1"}),
      &v, &how));
  EXPECT_EQ(v, 100);
  EXPECT_EQ(how, "htb qdisc on r0 at h2 (slowest of 3 ranks)");
  // Ranks that found nothing (or sent a malformed card) are counted, not taken.
  ASSERT_TRUE(bootstrap::parseLinkCard(
      bootstrap::combineLinkCards({"0 eth0 reports no speed", "garbage", "25 tbf qdisc on r0"}), &v,
      &how));
  EXPECT_EQ(v, 25);
  EXPECT_EQ(how, "tbf qdisc on r0 (slowest of 3 ranks; 2 found nothing)");
  // Nobody found anything: 0, with the first reason.
  ASSERT_TRUE(bootstrap::parseLinkCard(
      bootstrap::combineLinkCards({"0 loopback (no link)", "0 loopback (no link)"}), &v, &how));
  EXPECT_EQ(v, 0);
  EXPECT_EQ(how, "loopback (no link) (no rank of 2 found a rate)");
  ASSERT_TRUE(bootstrap::parseLinkCard(bootstrap::combineLinkCards({}), &v, &how));
  EXPECT_EQ(v, 0);
}

TEST(Link, DeclaredFoundAssumed) {
  unsetenv("CCMPI_LINK_MBITS");
  reloadTunables();
  setFoundLink(0, "eth0 reports no speed");
  EXPECT_FALSE(linkMbitsDeclared());
  EXPECT_FALSE(linkMbitsKnown());
  EXPECT_EQ(linkMbits(), 100);
  EXPECT_EQ(linkOrigin(), "assumed; nothing found: eth0 reports no speed");
  setFoundLink(25, "tbf qdisc on r0");
  EXPECT_TRUE(linkMbitsKnown());
  EXPECT_EQ(linkMbits(), 25);
  EXPECT_EQ(linkOrigin(), "tbf qdisc on r0");
  // 0 means "find it", like unset.
  setenv("CCMPI_LINK_MBITS", "0", 1);
  reloadTunables();
  EXPECT_FALSE(linkMbitsDeclared());
  EXPECT_EQ(linkMbits(), 25);
  setenv("CCMPI_LINK_MBITS", "10000", 1);
  reloadTunables();
  EXPECT_TRUE(linkMbitsDeclared());
  EXPECT_TRUE(linkMbitsKnown());
  EXPECT_EQ(linkMbits(), 10000);
  EXPECT_EQ(linkOrigin(), "CCMPI_LINK_MBITS");
  unsetenv("CCMPI_LINK_MBITS");
  reloadTunables();
  setFoundLink(0, "");
}

TEST(LinkFinder, NothingToFind) {
  EXPECT_EQ(transport::findLink("127.0.0.1").mbits, 0);
  EXPECT_EQ(transport::findLink("127.0.0.1").how, "loopback (no link)");
  EXPECT_EQ(transport::findInterfaceLink("lo").mbits, 0);
  // 192.0.2.0/24 is for documentation: no interface holds it.
  const transport::LinkFinding none = transport::findLink("192.0.2.77");
  EXPECT_EQ(none.mbits, 0);
  EXPECT_EQ(none.how, "no interface holds 192.0.2.77");
  EXPECT_EQ(transport::interfaceOf("not an address"), "");
  EXPECT_EQ(transport::nicSpeedMbits("no-such-if0"), 0);
  EXPECT_EQ(transport::nicSpeedMbits("../../etc"), 0);
  double mbits = -1;
  std::string kind = "x", why;
  EXPECT_FALSE(transport::shaperMbits("no-such-if0", &mbits, &kind, &why));
  EXPECT_EQ(mbits, 0);
  EXPECT_TRUE(kind.empty());
  EXPECT_FALSE(why.empty());
}

TEST(LinkProbe, TrainDispersion) {
  using transport::LinkProbe;
  // 1472-byte datagrams: 1538 bytes on the wire, 12304 bits; at 25 Mbit/s one every
  // 492.16 us. A shaper's bucket lets the first four through at once.
  const double bits = LinkProbe::wireBits(1472);
  EXPECT_EQ(bits, 1538 * 8);
  std::vector<int64_t> t;
  for (int i = 0; i < 64; ++i)
    t.push_back(i < 4 ? 1000 : 1000 + static_cast<int64_t>((i - 3) * bits / 25e6 * 1e9));
  std::string why;
  EXPECT_NEAR(LinkProbe::trainMbits(t.data(), 64, 1472, &why), 25, 0.01);
  // Too few packets.
  EXPECT_EQ(LinkProbe::trainMbits(t.data(), 15, 1472, &why), 0);
  EXPECT_NE(why.find("too few"), std::string::npos) << why;
  // The last quarter arrived in a burst (a receiver that fell behind): not trusted.
  for (int i = 48; i < 64; ++i) t[static_cast<size_t>(i)] = t[47] + (i - 47) * 1000;
  why.clear();
  EXPECT_EQ(LinkProbe::trainMbits(t.data(), 64, 1472, &why), 0);
  EXPECT_NE(why.find("unevenly"), std::string::npos) << why;
  // All at one instant.
  std::vector<int64_t> same(32, 5);
  EXPECT_EQ(LinkProbe::trainMbits(same.data(), 32, 1472, &why), 0);
}

TEST(LinkFinder, Sources) {
  std::string why;
  unsetenv("CCMPI_LINK_FIND");
  reloadTunables();
  EXPECT_TRUE(transport::linkSourcesValid(&why));
  for (const char* s : {"shaper", "nic", "probe"})
    EXPECT_TRUE(transport::linkSourceEnabled(s)) << s;
  setenv("CCMPI_LINK_FIND", "probe", 1);
  reloadTunables();
  EXPECT_TRUE(transport::linkSourceEnabled("probe"));
  EXPECT_FALSE(transport::linkSourceEnabled("nic"));
  EXPECT_FALSE(transport::linkSourceEnabled("shaper"));
  setenv("CCMPI_LINK_FIND", "nic,ethtool", 1);
  reloadTunables();
  EXPECT_FALSE(transport::linkSourcesValid(&why));
  EXPECT_EQ(why, "CCMPI_LINK_FIND=nic,ethtool: 'ethtool' is not shaper, nic, probe or none");
  unsetenv("CCMPI_LINK_FIND");
  reloadTunables();
}

}  // namespace
}  // namespace ccmpi
