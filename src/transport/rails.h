#pragma once
// Rails: the network interfaces of a host that each reach the other hosts on a network
// of their own (a NIC per switch), so that a large message can use all of them at once
// (docs/multirail.md).
//
// Every rank finds its host's rails by itself at MPI_Init: the interfaces CCMPI_IFACE
// lists (mpirun --iface a,b), or, when it names one interface or none, every interface
// that is up, not loopback, and holds an IPv4 address on a subnet no earlier rail holds.
// Rail 0 is the interface the rank listens on for everything (CCMPI_IFACE's first name,
// else the default address). Each rail carries the rate its link is found to have
// (link_finder.h). The rank publishes its rails as a card through PMI; two ranks share a
// rail where both have an address on one subnet (and the addresses differ: a bridge every
// host has under the same address, docker0 say, joins no two hosts).
#include <cstdint>
#include <string>
#include <vector>

#include "bootstrap/rail_card.h"

namespace ccmpi::transport {

using bootstrap::Rail;

// This host's rails. `list`: comma-separated interface names (CCMPI_IFACE); with fewer
// than two names every suitable interface is a rail, the first being the one holding
// `primary` (the address rank traffic uses). False with `why` when a listed interface has
// no IPv4 address or two listed ones share a subnet.
bool findRails(const std::string& list, const std::string& primary, std::vector<Rail>* out,
               std::string* why);

// The card and its parser (bootstrap/rail_card.h).
using bootstrap::formatRailCard;
using bootstrap::parseRailCard;

// Whether a and b have addresses on one subnet (the shorter prefix counts) that differ.
bool railsMeet(const Rail& a, const Rail& b);

// Rails to use with a peer: for each of my rails 1.. (rail 0 always joins the pair), the
// index of the peer's rail it meets, or -1. Rail 0 of the result is 0.
std::vector<int> matchRails(const std::vector<Rail>& mine, const std::vector<Rail>& theirs);

// Cuts `bytes` into one range per rail in proportion to `mbits` (equal shares when any is
// 0 or less): page-aligned cuts, the last rail takes the rest, empty ranges are left out.
// Each range is (first byte, end, index into mbits).
struct StripeCut {
  uint64_t lo = 0, hi = 0;
  size_t rail = 0;
};
std::vector<StripeCut> stripeCuts(uint64_t bytes, const std::vector<double>& mbits);

}  // namespace ccmpi::transport
