// libFuzzer target: hostfile and -H list parsing and rank placement (src/launcher/hostfile)
// must never crash; whatever parses names valid hosts with slots >= 1, and placing ranks
// on them puts every rank on one of them, each host's list ascending.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "launcher/hostfile.h"

using namespace ccmpi::launcher;

namespace {
void checkPlacement(const Placement& p, std::size_t nhosts, int nranks) {
  if (static_cast<int>(p.hostOfRank.size()) != nranks || p.ranksOfHost.size() != nhosts) abort();
  for (int r = 0; r < nranks; ++r) {
    const int h = p.hostOfRank[static_cast<std::size_t>(r)];
    if (h < 0 || static_cast<std::size_t>(h) >= nhosts) abort();
    const auto& mine = p.ranksOfHost[static_cast<std::size_t>(h)];
    const int local = p.localRankOf[static_cast<std::size_t>(r)];
    if (local < 0 || static_cast<std::size_t>(local) >= mine.size() ||
        mine[static_cast<std::size_t>(local)] != r)
      abort();
  }
  for (const auto& list : p.ranksOfHost)
    for (std::size_t i = 1; i < list.size(); ++i)
      if (list[i - 1] >= list[i]) abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  // The first byte: the rank count to place (1..64); the rest is the text.
  const int nranks = 1 + data[0] % 64;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  std::vector<HostSlots> hosts;
  std::string error;
  for (int list = 0; list < 2; ++list) {
    hosts.clear();
    error.clear();
    const bool ok =
        list ? parseHostList(text, &hosts, &error) : parseHostfile(text, &hosts, &error);
    if (!ok) {
      if (error.empty()) abort();
      continue;
    }
    for (const HostSlots& h : hosts)
      if (h.name.empty() || h.slots < 1) abort();
    const std::vector<HostSlots> merged = mergeHosts(hosts);
    if (merged.size() > hosts.size()) abort();
    for (const HostSlots& h : merged)
      if (h.slots < 1) abort();
    if (merged.empty()) continue;
    checkPlacement(placeRanks(merged, nranks), merged.size(), nranks);
    checkPlacement(placeRanksByNode(merged, nranks), merged.size(), nranks);
    (void)processMapping(placeRanks(merged, nranks));
  }
  return 0;
}
