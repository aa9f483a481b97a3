#pragma once
// The link rate each rank finds (transport/link_finder.h) travels through PMI as a card,
// "MBITS HOW" under ccmpi.link.<rank>. The job's rate is the slowest host's: mpirun combines
// the cards at the PMI barrier into ccmpi.link_mbits; under another process manager every
// rank combines them itself. Either way every rank ends with the same figure, so the cost
// models built on it (phased schedules) agree.
#include <string>
#include <vector>

namespace ccmpi::bootstrap {

inline constexpr const char* kLinkCardKey = "ccmpi.link.";  // + rank
inline constexpr const char* kJobLinkKey = "ccmpi.link_mbits";

std::string formatLinkCard(double mbits, const std::string& how);
// False when `card` is not "MBITS HOW" with MBITS a number >= 0.
bool parseLinkCard(const std::string& card, double* mbits, std::string* how);
// The job's card from every rank's: the slowest rate found (0 when no rank found one),
// with where it was found and how many ranks found nothing.
std::string combineLinkCards(const std::vector<std::string>& cards);

}  // namespace ccmpi::bootstrap
