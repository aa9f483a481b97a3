// CCMPI_LINK_MBITS (see link.h).
#include "base/link.h"

#include "base/tunables.h"

namespace ccmpi {
namespace {
Tunable<double> kLinkMbits("CCMPI_LINK_MBITS", 100,
                           "Mbit/s of one host's Ethernet link: the cost model of phased "
                           "schedules, the multicast pacing rate and, when set, TCP pacing "
                           "(CCMPI_TCP_PACING); ccmpi-cluster exec sets it to the emulated "
                           "link's rate");
}  // namespace

double linkMbits() {
  const double v = kLinkMbits.get();
  return v > 0 ? v : 100;
}

double tcpPayloadBytesPerSecond(double mbits) {
  return mbits * 1e6 / 8 * 1448 / 1538;
}

bool linkMbitsKnown() {
  return kLinkMbits.get() > 0 && kLinkMbits.fromEnv();
}

}  // namespace ccmpi
