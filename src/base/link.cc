// CCMPI_LINK_MBITS (see link.h).
#include "base/link.h"

#include "base/tunables.h"

namespace ccmpi {
namespace {
Tunable<double> kLinkMbits("CCMPI_LINK_MBITS", 100,
                           "Mbit/s of one host's Ethernet link: the cost model of phased "
                           "schedules, and the default multicast pacing rate (90% of it)");
}  // namespace

double linkMbits() {
  const double v = kLinkMbits.get();
  return v > 0 ? v : 100;
}

}  // namespace ccmpi
