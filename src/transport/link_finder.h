#pragma once
// Finding the line rate of the link a rank's traffic leaves on, without being told
// (docs/cluster.md, "The link rate"). Two sources, the lower one wins:
//  - a traffic shaper on the interface's egress: a tbf root qdisc, or an htb root qdisc's
//    top-level classes (the fastest ceiling a flow can get), read over rtnetlink (libnl);
//    this is how a site (and ccmpi-cluster) limits a host's cable below its NIC's speed;
//  - the speed the NIC's driver reports (/sys/class/net/IF/speed; veth reports 10000,
//    virtio often nothing).
// When neither gives a figure on any host, host leaders measure with a packet train
// (link_probe.h). CCMPI_LINK_FIND chooses among the three. Each rank finds its own host's
// rate at MPI_Init and publishes it through PMI; the job takes the slowest host's
// (base/link.h), so every rank builds the same cost model.
#include <string>

namespace ccmpi::transport {

struct LinkFinding {
  double mbits = 0;  // 0: nothing found
  std::string how;   // where the figure comes from, or why there is none
};

// The rate of the interface holding the IPv4 address `address`.
LinkFinding findLink(const std::string& address);
// The rate of the interface `iface`.
LinkFinding findInterfaceLink(const std::string& iface);

// The interface holding an IPv4 address ("" if none).
std::string interfaceOf(const std::string& address);
// Mbit/s the NIC's driver reports for `iface` (0 when it reports none).
double nicSpeedMbits(const std::string& iface);
// Mbit/s a tbf or htb shaper on `iface`'s egress allows (0 when there is none); `kind`
// gets "tbf" or "htb". False (with `why`) when the shapers could not be read.
bool shaperMbits(const std::string& iface, double* mbits, std::string* kind, std::string* why);
// Whether this build reads traffic shapers (it needs libnl-route-3).
bool shapersReadable();
// Whether CCMPI_LINK_FIND lets MPI_Init use a source: "shaper", "nic" or "probe"
// (transport/link_probe.h).
bool linkSourceEnabled(const char* source);
// CCMPI_LINK_FIND names only known sources (else `why` says which is not).
bool linkSourcesValid(std::string* why);

}  // namespace ccmpi::transport
