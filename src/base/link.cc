// The link rate: declared, found or assumed (see link.h).
#include "base/link.h"

#include "base/tunables.h"

namespace ccmpi {
namespace {
Tunable<double> kLinkMbits("CCMPI_LINK_MBITS", 0,
                           "Mbit/s of one host's Ethernet link: the cost model of phased "
                           "schedules, the multicast pacing rate and TCP pacing "
                           "(CCMPI_TCP_PACING); 0 = find it at MPI_Init (the rate of a "
                           "tbf/htb shaper on the interface, else the NIC's speed; the "
                           "slowest host's counts), 100 when nothing is found");
constexpr double kAssumedMbits = 100;

double gFound = 0;
std::string gFoundHow = "not looked for (MPI_Init has not run)";
}  // namespace

bool linkMbitsDeclared() {
  return kLinkMbits.get() > 0;
}

double linkMbits() {
  if (linkMbitsDeclared()) return kLinkMbits.get();
  return gFound > 0 ? gFound : kAssumedMbits;
}

bool linkMbitsKnown() {
  return linkMbitsDeclared() || gFound > 0;
}

std::string linkOrigin() {
  if (linkMbitsDeclared()) return "CCMPI_LINK_MBITS";
  if (gFound > 0) return gFoundHow;
  return "assumed; nothing found: " + gFoundHow;
}

void setFoundLink(double mbits, const std::string& how) {
  gFound = mbits > 0 ? mbits : 0;
  gFoundHow = how;
}

double tcpPayloadBytesPerSecond(double mbits) {
  return mbits * 1e6 / 8 * 1448 / 1538;
}

}  // namespace ccmpi
