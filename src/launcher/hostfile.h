#pragma once
// Hosts and rank placement (pure functions, unit tested).
//
// Hostfile syntax (Open MPI and MPICH styles both accepted), one host per line:
//   node1                 1 slot
//   node2 slots=4         4 slots (max_slots=N is accepted and ignored)
//   node3:2               2 slots
//   # comment             '#' starts a comment anywhere on a line; blank lines ignored
// -H/--host takes a comma-separated list of the same `name` / `name:N` entries.
// A host named twice gets the sum of its slots, at the place of its first appearance.
// Host names may contain letters, digits and . _ - @ (user@host for ssh).
//
// Placement: ranks fill the hosts in order, each up to its slots (rank 0 on the first
// host). If there are more ranks than slots, placement starts over at the first host
// (oversubscription), so a host's ranks need not be consecutive.
#include <string>
#include <string_view>
#include <vector>

namespace ccmpi::launcher {

struct HostSlots {
  std::string name;
  int slots = 1;
};

bool parseHostfile(std::string_view text, std::vector<HostSlots>* hosts, std::string* error);
bool parseHostList(std::string_view list, std::vector<HostSlots>* hosts, std::string* error);
// Merges entries with the same name (keeping first-appearance order).
std::vector<HostSlots> mergeHosts(const std::vector<HostSlots>& hosts);

struct Placement {
  std::vector<int> hostOfRank;                // rank -> host index
  std::vector<std::vector<int>> ranksOfHost;  // host index -> its ranks, ascending
  std::vector<int> localRankOf;               // rank -> index among its host's ranks
  bool oversubscribed = false;
};
Placement placeRanks(const std::vector<HostSlots>& hosts, int nranks);
// --map-by node: rank r goes to the next host (round robin) that has a free slot; once
// every slot is taken (oversubscription), round robin over all hosts.
Placement placeRanksByNode(const std::vector<HostSlots>& hosts, int nranks);

// MPICH's PMI_process_mapping value for a placement: "(vector,(node,count,ppn),...)"
// with runs of equal-sized consecutive blocks merged.
std::string processMapping(const Placement& placement);

// True if `name` designates the machine we run on: localhost, 127.x.y.z, or `hostname`
// itself or its first label.
bool isLocalHostName(std::string_view name, std::string_view hostname);

}  // namespace ccmpi::launcher
