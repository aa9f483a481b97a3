#pragma once
// The cluster's link rate, one figure for every cost model and pacing default that needs it
// (phased schedules, multicast pacing, TCP pacing): Mbit/s of one host's Ethernet link.
// CCMPI_LINK_MBITS declares it; unset or 0, MPI_Init finds it (transport/link_finder.h:
// traffic shapers, the NIC's speed) and the job takes the slowest host's
// (bootstrap/link_card.h). When nothing declares or finds it, 100 is assumed (the seed
// papers' clusters) and what only a known rate may decide (TCP pacing) stays off.
#include <string>

namespace ccmpi {

double linkMbits();
// Whether the rate was declared (CCMPI_LINK_MBITS) or found, rather than assumed.
bool linkMbitsKnown();
// Whether CCMPI_LINK_MBITS declares it (then nothing is looked for).
bool linkMbitsDeclared();
// Where linkMbits() comes from: "CCMPI_LINK_MBITS", where it was found, or why it is
// assumed.
std::string linkOrigin();
// MPI_Init's finding for the job (0: nothing found; `how` says why).
void setFoundLink(double mbits, const std::string& how);
// Bytes per second of TCP payload at a line rate of `mbits` Mbit/s: 1448-byte segments
// (MSS with timestamps) in 1538-byte frames on the wire (preamble, Ethernet, IP and TCP
// headers, FCS, inter-frame gap).
double tcpPayloadBytesPerSecond(double mbits);

}  // namespace ccmpi
