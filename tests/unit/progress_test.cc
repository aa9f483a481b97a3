// progress/engine: how long a blocked call spins, and whether it yields the core on every
// idle poll, from the ranks on its host and the ranks per core of the job's busiest
// machine (Engine::spinBudgetNs; docs/shared-memory.md, docs/cluster.md).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>

#include "base/tunables.h"
#include "progress/engine.h"

using ccmpi::progress::Engine;

namespace {

struct Policy {
  int64_t spinUs;
  bool yields;
};

// Tunables read the environment once: read it again.
void reloadTunables() {
  for (ccmpi::TunableBase* t : ccmpi::allTunables()) t->reload();
}

Policy policyFor(int localRanks, int machineRanksPerCore) {
  Engine e;
  e.setLocalRanks(localRanks);
  e.setMachineRanksPerCore(machineRanksPerCore);
  return {e.spinBudgetNs() / 1000, e.yieldsEveryIdlePoll()};
}

class WaitPolicy : public ::testing::Test {
 protected:
  void SetUp() override {
    unsetenv("CCMPI_SPIN_US");
    reloadTunables();
    cores_ = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
    ASSERT_GE(cores_, 1);
  }
  int cores_ = 1;
};

}  // namespace

TEST_F(WaitPolicy, LoneRankOnItsOwnMachine) {
  const Policy p = policyFor(1, 0);
  EXPECT_EQ(p.spinUs, 300);
  EXPECT_FALSE(p.yields);
  // Unknown machine figure (another process manager): the same.
  EXPECT_EQ(policyFor(1, -1).spinUs, 300);
  EXPECT_FALSE(policyFor(1, -1).yields);
}

TEST_F(WaitPolicy, HostsSharingAnOversubscribedMachineYieldLonger) {
  // One rank per emulated host, several hosts per core: yield on every idle poll, 20 ms.
  for (int perCore : {2, 4, 8}) {
    const Policy p = policyFor(1, perCore);
    EXPECT_EQ(p.spinUs, 20000) << perCore;
    EXPECT_TRUE(p.yields) << perCore;
  }
  // A host whose ranks have a core each, on such a machine: the same.
  const Policy p = policyFor(cores_, 4);
  EXPECT_EQ(p.spinUs, 20000);
  EXPECT_TRUE(p.yields);
}

TEST_F(WaitPolicy, CoreEachWithoutSharing) {
  // A core per rank (several ranks on the host; on a one-core machine, the lone rank).
  const Policy p = policyFor(cores_, 1);
  EXPECT_EQ(p.spinUs, cores_ >= 2 ? 1000 : 300);
  EXPECT_FALSE(p.yields);
}

TEST_F(WaitPolicy, HostOversubscribed) {
  // More ranks on the host than cores: yield on every idle poll; the budget by ranks per
  // core (two per core: 1 ms, more: 50 us), whatever the machine figure says.
  Policy p = policyFor(cores_ + 1, 8);
  EXPECT_TRUE(p.yields);
  EXPECT_EQ(p.spinUs, 50);
  p = policyFor(8 * cores_, 8);
  EXPECT_TRUE(p.yields);
  EXPECT_EQ(p.spinUs, 50);
  p = policyFor(2 * cores_, 2);
  EXPECT_TRUE(p.yields);
  EXPECT_EQ(p.spinUs, 1000);
}

TEST_F(WaitPolicy, ExplicitBudgetWins) {
  setenv("CCMPI_SPIN_US", "77", 1);
  reloadTunables();
  const Policy p = policyFor(1, 4);
  unsetenv("CCMPI_SPIN_US");
  reloadTunables();
  EXPECT_EQ(p.spinUs, 77);
  EXPECT_TRUE(p.yields);
}
