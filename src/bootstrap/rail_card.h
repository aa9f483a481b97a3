#pragma once
// A rank's rails (transport/rails.h) as a card: "iface ip/prefix port mbits" per rail,
// ';'-separated, published under ccmpi.rails.<rank>. The ranks read the cards of their
// peers, and mpirun reads all of them at the PMI barrier to give the job's rail count
// (ccmpi.job_rails): one format, one parser, here.
#include <cstdint>
#include <string>
#include <vector>

namespace ccmpi::bootstrap {

inline constexpr const char* kRailCardKey = "ccmpi.rails.";  // + rank
inline constexpr const char* kJobRailsKey = "ccmpi.job_rails";

struct Rail {
  std::string iface;
  std::string ip;  // dotted IPv4
  int prefix = 0;  // subnet prefix length
  uint16_t port = 0;
  double mbits = 0;  // the link's rate (0 = unknown)
};

std::string formatRailCard(const std::vector<Rail>& rails);
// False on anything malformed (and on an empty card).
bool parseRailCard(const std::string& card, std::vector<Rail>* out);

}  // namespace ccmpi::bootstrap
