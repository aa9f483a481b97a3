#pragma once
// Measuring a link's rate with a packet train, for hosts whose NIC reports no speed and
// which no shaper limits (virtual machines, most often): the sender sends a train of
// MTU-sized UDP datagrams back to back; the slowest link on the way spaces them out, and
// the receiver's kernel timestamps of their arrival give the rate (packet-train
// dispersion). The train's first packets may pass a shaper's bucket at once: the rate is
// taken over its second half. MPI_Init runs it between host leaders (each sends to the
// next host's leader and receives from the previous one) only when no host found a rate
// (transport/link_finder.h) and CCMPI_LINK_FIND allows it.
#include <netinet/in.h>

#include <cstdint>
#include <string>

namespace ccmpi::transport {

class LinkProbe {
 public:
  LinkProbe() = default;
  LinkProbe(const LinkProbe&) = delete;
  LinkProbe& operator=(const LinkProbe&) = delete;
  ~LinkProbe();

  // A UDP socket on `address`:`port` (the rank's TCP listener's, so that peers know it),
  // with kernel receive timestamps. False (with `why`) when it cannot be opened.
  bool open(const std::string& address, uint16_t port, std::string* why);
  bool isOpen() const { return fd_ >= 0; }
  void close();

  // Sends `packets` datagrams of the interface's MTU to `to` ("a.b.c.d:port"), tagged with
  // `nonce`. False (with `why`) on a bad address or a send error.
  bool sendTrain(const std::string& to, uint64_t nonce, int packets, std::string* why);
  // Waits (at most `timeoutNs` in all) for a train tagged `nonce` and returns its rate in
  // Mbit/s of Ethernet line rate (0 with `why` when too few packets came).
  // *arrived (when given): how many of the train's packets came.
  double receiveTrain(uint64_t nonce, int packets, int64_t timeoutNs, std::string* why,
                      int* arrived = nullptr);

  // Line bits one datagram of `payload` bytes takes: UDP, IPv4 and Ethernet headers, FCS,
  // preamble and inter-frame gap.
  static double wireBits(size_t payload);
  // The rate in Mbit/s from `n` arrival times (ns, ascending) of datagrams of `payload`
  // bytes, over the second half of the train; 0 (with `why`) when fewer than 16 arrived, or
  // when its third and fourth quarters disagree by more than 15% (the receiver or the
  // emulation could not keep pace, as at gigabit rates on a busy host: a figure not to
  // pace by).
  static double trainMbits(const int64_t* arrivals, int n, size_t payload, std::string* why);

 private:
  int fd_ = -1;
  size_t payload_ = 1472;
};

}  // namespace ccmpi::transport
