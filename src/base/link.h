#pragma once
// The cluster's link rate, one knob for every cost model and pacing default that needs it
// (phased schedules, multicast pacing): CCMPI_LINK_MBITS, Mbit/s of one host's Ethernet
// link (default 100, the seed papers' clusters and the emulated cluster's default).
namespace ccmpi {

double linkMbits();
// Whether the link rate was given (CCMPI_LINK_MBITS in the environment, as the emulated
// cluster's hosts have it) rather than assumed: what only a known rate may decide (TCP
// pacing) asks this first.
bool linkMbitsKnown();
// Bytes per second of TCP payload at a line rate of `mbits` Mbit/s: 1448-byte segments
// (MSS with timestamps) in 1538-byte frames on the wire (preamble, Ethernet, IP and TCP
// headers, FCS, inter-frame gap).
double tcpPayloadBytesPerSecond(double mbits);

}  // namespace ccmpi
