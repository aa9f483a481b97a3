// The link rate: cards and their combination (bootstrap/link_card.h), the declared / found /
// assumed figure (base/link.h) and what the finder says where there is nothing to find
// (transport/link_finder.h; the shapers themselves are checked on the emulated cluster,
// tests/cluster).
#include <gtest/gtest.h>
#include <stdlib.h>

#include "base/link.h"
#include "base/tunables.h"
#include "bootstrap/link_card.h"
#include "transport/link_finder.h"

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

}  // namespace
}  // namespace ccmpi
