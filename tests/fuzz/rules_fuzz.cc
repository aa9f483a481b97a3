// libFuzzer target: the collective rules parser (CCMPI_COLL_RULES files, src/coll/
// rules_text.cc) must never crash; what it accepts has ordered ranges, and printing each
// rule (ruleText, as ccmpi_info --algorithms does) and parsing it again gives the same rule.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "coll/rules.h"

using namespace ccmpi::coll;

namespace {
bool same(const Rule& a, const Rule& b) {
  return a.collective == b.collective && a.algorithm == b.algorithm && a.minRanks == b.minRanks &&
         a.maxRanks == b.maxRanks && a.minBytes == b.minBytes && a.maxBytes == b.maxBytes &&
         a.minHosts == b.minHosts && a.maxHosts == b.maxHosts &&
         a.minRanksPerCore == b.minRanksPerCore && a.maxRanksPerCore == b.maxRanksPerCore &&
         a.minRanksPerHost == b.minRanksPerHost && a.maxRanksPerHost == b.maxRanksPerHost;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<Rule> rules;
  std::string error;
  if (!parseRules(text, &rules, &error)) {
    if (error.rfind("line ", 0) != 0) abort();
    return 0;
  }
  for (const Rule& r : rules) {
    if (r.minRanks < 1 || r.minRanks > r.maxRanks || r.minBytes < 0 || r.minBytes > r.maxBytes ||
        r.minHosts < 1 || r.minHosts > r.maxHosts || r.minRanksPerCore < 0 ||
        r.minRanksPerCore > r.maxRanksPerCore || r.minRanksPerHost < 1 ||
        r.minRanksPerHost > r.maxRanksPerHost || r.line < 1)
      abort();
    std::vector<Rule> again;
    std::string why;
    if (!parseRules(ruleText(r), &again, &why) || again.size() != 1 || !same(r, again[0])) abort();
  }
  return 0;
}
