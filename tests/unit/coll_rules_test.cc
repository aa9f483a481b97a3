// The collective rule table: parsing, normalized text, and loading a rules file checked
// against the algorithm tables (faked here: this test links rules.cc alone).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "coll/coll.h"
#include "coll/rules.h"
#include "comm/comm.h"

namespace ccmpi::coll {

const std::vector<CollectiveDescription>& algorithmTables() {
  static const std::vector<CollectiveDescription> tables = {CollectiveDescription{
      "bcast", "CCMPI_BCAST_ALGORITHM", {{"binomial", "", "", ""}, {"chain", "", "", ""}}}};
  return tables;
}

// The world's hosts (runtime::worldHosts in the library): ranks 0-3 on host 0, 4-5 on
// host 1, 6 on host 2, 7 on host 0 (8 ranks).
const std::vector<int>& worldRankHosts() {
  static const std::vector<int> hosts = {0, 0, 0, 0, 1, 1, 2, 0};
  return hosts;
}

namespace {

TEST(CollRules, ParsesRangesAndSuffixes) {
  std::vector<Rule> r;
  std::string err;
  ASSERT_TRUE(
      parseRules("# comment\n\nbcast 1-8 0-64k binomial  # tail\n"
                 "bcast 9-* 1m-* chain\nbcast 4 * chain\nbcast * 100 binomial\n",
                 &r, &err))
      << err;
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].collective, "bcast");
  EXPECT_EQ(r[0].minRanks, 1);
  EXPECT_EQ(r[0].maxRanks, 8);
  EXPECT_EQ(r[0].minBytes, 0);
  EXPECT_EQ(r[0].maxBytes, 64 * 1024);
  EXPECT_EQ(r[0].line, 3);
  EXPECT_EQ(r[1].minRanks, 9);
  EXPECT_EQ(r[1].maxRanks, 0x7fffffff);
  EXPECT_EQ(r[1].minBytes, 1 << 20);
  EXPECT_EQ(r[1].maxBytes, INT64_MAX);
  EXPECT_EQ(r[2].minRanks, 4);
  EXPECT_EQ(r[2].maxRanks, 4);
  EXPECT_EQ(r[2].minBytes, 0);
  EXPECT_EQ(r[2].maxBytes, INT64_MAX);
  EXPECT_EQ(r[3].minBytes, 100);
  EXPECT_EQ(r[3].maxBytes, 100);
  EXPECT_EQ(r[3].algorithm, "binomial");
  EXPECT_NE(ruleText(r[0]).find("1-8"), std::string::npos);
  EXPECT_NE(ruleText(r[0]).find("0-64k"), std::string::npos);
  EXPECT_NE(ruleText(r[1]).find("1m-*"), std::string::npos);
}

TEST(CollRules, OptionalHostRange) {
  std::vector<Rule> r;
  std::string err;
  ASSERT_TRUE(
      parseRules("bcast * 64k-* chain 9-*\nbcast * * binomial 2-4\nbcast * * chain\n", &r, &err))
      << err;
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].minHosts, 9);
  EXPECT_EQ(r[0].maxHosts, 0x7fffffff);
  EXPECT_EQ(r[1].minHosts, 2);
  EXPECT_EQ(r[1].maxHosts, 4);
  EXPECT_EQ(r[2].minHosts, 1);
  EXPECT_EQ(r[2].maxHosts, 0x7fffffff);
  EXPECT_NE(ruleText(r[0]).find("chain 9-*"), std::string::npos) << ruleText(r[0]);
  EXPECT_EQ(ruleText(r[2]).find("chain "), std::string::npos) << ruleText(r[2]);
  EXPECT_FALSE(parseRules("bcast * * chain 0-3\n", &r, &err));
  EXPECT_NE(err.find("host-count"), std::string::npos) << err;
  EXPECT_FALSE(parseRules("bcast * * chain 2 1 2 2 extra\n", &r, &err));
  EXPECT_NE(err.find("4 to 8 fields"), std::string::npos) << err;
}

// The seventh field: ranks per host (from 1), printed after the two before it.
TEST(CollRules, OptionalRanksPerHostRange) {
  std::vector<Rule> r;
  std::string err;
  ASSERT_TRUE(parseRules("allreduce * * node 2-* * 2-*\nallreduce * * ring * 3 1\n", &r, &err))
      << err;
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].minRanksPerHost, 2);
  EXPECT_EQ(r[0].maxRanksPerHost, 0x7fffffff);
  EXPECT_EQ(r[0].minRanksPerCore, 0);
  EXPECT_EQ(r[0].maxRanksPerCore, 0x7fffffff);
  EXPECT_EQ(r[1].minRanksPerHost, 1);
  EXPECT_EQ(r[1].maxRanksPerHost, 1);
  EXPECT_NE(ruleText(r[0]).find("node 2-* * 2-*"), std::string::npos) << ruleText(r[0]);
  EXPECT_NE(ruleText(r[1]).find("ring * 3 1"), std::string::npos) << ruleText(r[1]);
  EXPECT_FALSE(parseRules("allreduce * * node * * 0\n", &r, &err));
  EXPECT_NE(err.find("ranks-per-host"), std::string::npos) << err;
}

// The eighth field: the job's rails (from 1), printed after the three before it.
TEST(CollRules, OptionalRailsRange) {
  std::vector<Rule> r;
  std::string err;
  ASSERT_TRUE(
      parseRules("bcast * 64k-* two_tree 3-* * * 2-*\nbcast * * chain * * * 1\n"
                 "bcast * * binomial * * 2\n",
                 &r, &err))
      << err;
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].minRails, 2);
  EXPECT_EQ(r[0].maxRails, 0x7fffffff);
  EXPECT_EQ(r[0].minHosts, 3);
  EXPECT_EQ(r[1].minRails, 1);
  EXPECT_EQ(r[1].maxRails, 1);
  EXPECT_EQ(r[2].minRails, 1);  // a rule of seven fields: any rails
  EXPECT_EQ(r[2].maxRails, 0x7fffffff);
  EXPECT_NE(ruleText(r[0]).find("two_tree 3-* * * 2-*"), std::string::npos) << ruleText(r[0]);
  EXPECT_NE(ruleText(r[1]).find("chain * * * 1"), std::string::npos) << ruleText(r[1]);
  EXPECT_FALSE(parseRules("bcast * * chain * * * 0\n", &r, &err));
  EXPECT_NE(err.find("rails"), std::string::npos) << err;
}

// The sixth field: ranks per core (from 0; "*" = any, also unknown).
TEST(CollRules, OptionalRanksPerCoreRange) {
  std::vector<Rule> r;
  std::string err;
  ASSERT_TRUE(
      parseRules("barrier * * tree * 4-*\nbarrier * * tree 2-3 0\n"
                 "barrier * * tree * 1-2\nbarrier * * tree 9-* *\n",
                 &r, &err))
      << err;
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].minRanksPerCore, 4);
  EXPECT_EQ(r[0].maxRanksPerCore, 0x7fffffff);
  EXPECT_EQ(r[0].minHosts, 1);
  EXPECT_EQ(r[1].minRanksPerCore, 0);
  EXPECT_EQ(r[1].maxRanksPerCore, 0);
  EXPECT_EQ(r[1].minHosts, 2);
  EXPECT_EQ(r[1].maxHosts, 3);
  EXPECT_EQ(r[2].minRanksPerCore, 1);
  EXPECT_EQ(r[2].maxRanksPerCore, 2);
  EXPECT_EQ(r[3].minRanksPerCore, 0);
  EXPECT_EQ(r[3].maxRanksPerCore, 0x7fffffff);
  // Printed back: the hosts field stays in front of it; "1-*" is not "*".
  EXPECT_NE(ruleText(r[0]).find("tree * 4-*"), std::string::npos) << ruleText(r[0]);
  EXPECT_NE(ruleText(r[1]).find("tree 2-3 0"), std::string::npos) << ruleText(r[1]);
  EXPECT_NE(ruleText(r[2]).find("tree * 1-2"), std::string::npos) << ruleText(r[2]);
  EXPECT_NE(ruleText(r[3]).find("tree 9-*"), std::string::npos) << ruleText(r[3]);
  EXPECT_EQ(ruleText(r[3]).find("9-* "), std::string::npos) << ruleText(r[3]);
  std::vector<Rule> one;
  ASSERT_TRUE(parseRules("barrier * * tree * 1-*\n", &one, &err)) << err;
  ASSERT_EQ(one.size(), 1u);
  EXPECT_NE(ruleText(one[0]).find("tree * 1-*"), std::string::npos) << ruleText(one[0]);
  for (const char* bad :
       {"barrier * * tree * 4k\n", "barrier * * tree * x\n", "barrier * * tree * 5-2\n",
        "barrier * * tree * -1\n", "barrier * * tree * 99999999999999999999\n"}) {
    EXPECT_FALSE(parseRules(bad, &r, &err)) << bad;
    EXPECT_NE(err.find("ranks-per-core"), std::string::npos) << err;
  }
  // An over-long number in the other ranges is an error too (not an exception).
  EXPECT_FALSE(parseRules("barrier 99999999999999999999 * tree\n", &r, &err));
  EXPECT_NE(err.find("communicator-size"), std::string::npos) << err;
  // The job's figure: unknown until set.
  EXPECT_EQ(jobRanksPerCore(), -1);
  setJobRanksPerCore(14);
  EXPECT_EQ(jobRanksPerCore(), 14);
  setJobRanksPerCore(-5);
  EXPECT_EQ(jobRanksPerCore(), -1);
}

// The hosts a communicator spans: counted from the host of each of its ranks
// (worldRankHosts above), so a communicator inside one host of a multi-host job counts 1;
// without a host for every rank, the job's CCMPI_NUM_NODES capped at the size.
TEST(CollRules, HostsOfACommunicator) {
  setenv("CCMPI_NUM_NODES", "3", 1);
  auto comm = [](std::vector<int> world) {
    auto c = std::make_unique<comm::Comm>();
    c->size = static_cast<int>(world.size());
    c->worldRanks = std::move(world);
    return c;
  };
  EXPECT_EQ(ruleHosts(4, comm({0, 1, 2, 3}).get()), 1);
  EXPECT_EQ(ruleHosts(3, comm({3, 7, 2}).get()), 1);
  EXPECT_EQ(ruleHosts(2, comm({3, 4}).get()), 2);
  EXPECT_EQ(ruleHosts(8, comm({0, 1, 2, 3, 4, 5, 6, 7}).get()), 3);
  EXPECT_EQ(ruleHosts(3, comm({6, 5, 7}).get()), 3);
  // A rank the job does not know (another job's): the job's host count, capped.
  EXPECT_EQ(ruleHosts(2, comm({0, 9}).get()), 2);
  EXPECT_EQ(ruleHosts(5, comm({0, 1, 2, 3, 12}).get()), 3);
  EXPECT_EQ(ruleHosts(5, nullptr), 3);
}

TEST(CollRules, RejectsMalformedLines) {
  const char* bad[] = {
      "bcast 1-8 binomial\n",         "bcast 0-4 * binomial\n",   "bcast 8-4 * binomial\n",
      "bcast x * binomial\n",         "bcast * 4q binomial\n",    "bcast * 9-2 binomial\n",
      "bcast 1-8 * binomial extra\n", "bc\x01ast * * binomial\n", "bcast * * bino\x7fmial\n"};
  for (const char* text : bad) {
    std::vector<Rule> r;
    std::string err;
    EXPECT_FALSE(parseRules(std::string("# first line\n") + text, &r, &err)) << text;
    EXPECT_EQ(err.rfind("line 2: ", 0), 0u) << err;
  }
}

// What ccmpi_info --algorithms prints parses back to the same rule, also at the longest
// names and widest ranges (the printed line once went through a 160-byte buffer) and at
// counts that are multiples of 1024 (once printed with a k suffix only bytes accept).
TEST(CollRules, PrintedRulesParseBack) {
  const std::string name(64, 'c'), alg(64, 'a');
  const std::string text = name + " 2-2147483646 1-9223372036854775806 " + alg +
                           " 2-2147483647 0-* 1-2147483647\n"
                           "bcast 3 1k-64k binomial 2 5 4-8\n"
                           "bcast 1024 2048 binomial 1024-2048 0 2048\n";
  std::vector<Rule> r;
  std::string err;
  ASSERT_TRUE(parseRules(text, &r, &err)) << err;
  ASSERT_EQ(r.size(), 3u);
  for (const Rule& x : r) {
    std::vector<Rule> again;
    ASSERT_TRUE(parseRules(ruleText(x), &again, &err)) << ruleText(x) << ": " << err;
    ASSERT_EQ(again.size(), 1u);
    // Every field of the rule (a tuple, so a mismatch prints both sides).
    auto fields = [](const Rule& y) {
      return std::tie(y.collective, y.algorithm, y.minRanks, y.maxRanks, y.minBytes, y.maxBytes,
                      y.minHosts, y.maxHosts, y.minRanksPerCore, y.maxRanksPerCore,
                      y.minRanksPerHost, y.maxRanksPerHost);
    };
    EXPECT_EQ(fields(again[0]), fields(x));
  }
  EXPECT_FALSE(parseRules(std::string(65, 'c') + " * * binomial\n", &r, &err));
}

TEST(CollRules, FileIsCheckedAgainstTheTables) {
  char path[] = "/tmp/ccmpi_rules_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  FILE* f = fdopen(fd, "w");
  fputs("bcast * 0-1k binomial\nbcast * * nosuch\n", f);
  fclose(f);
  setenv("CCMPI_COLL_RULES", path, 1);
  std::string err, source;
  const std::vector<Rule>& rules = activeRules(&err, &source);
  remove(path);
  EXPECT_TRUE(rules.empty());
  EXPECT_EQ(source, path);
  EXPECT_NE(err.find("line 2: bcast has no algorithm 'nosuch'"), std::string::npos) << err;
}

}  // namespace
}  // namespace ccmpi::coll
