#pragma once
// The cluster's link rate, one knob for every cost model and pacing default that needs it
// (phased schedules, multicast pacing): CCMPI_LINK_MBITS, Mbit/s of one host's Ethernet
// link (default 100, the seed papers' clusters and the emulated cluster's default).
namespace ccmpi {

double linkMbits();

}  // namespace ccmpi
