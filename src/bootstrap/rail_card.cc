// The rail card's format and parser (rail_card.h).
#include "bootstrap/rail_card.h"

#include <arpa/inet.h>

#include <cmath>
#include <cstdio>
#include <sstream>

namespace ccmpi::bootstrap {

std::string formatRailCard(const std::vector<Rail>& rails) {
  std::string out;
  for (const Rail& r : rails) {
    char buf[160];
    snprintf(buf, sizeof buf, "%s %s/%d %u %.17g", r.iface.empty() ? "-" : r.iface.c_str(),
             r.ip.c_str(), r.prefix, r.port, r.mbits > 0 ? r.mbits : 0.0);
    if (!out.empty()) out += ';';
    out += buf;
  }
  return out;
}

bool parseRailCard(const std::string& card, std::vector<Rail>* out) {
  out->clear();
  if (card.empty() || card.back() == ';') return false;
  std::stringstream in(card);
  std::string item;
  while (std::getline(in, item, ';')) {
    char iface[64], ip[32];
    int prefix = 0;
    unsigned port = 0;
    double mbits = 0;
    int used = 0;
    if (sscanf(item.c_str(), "%63s %31[0-9.]/%d %u %lf%n", iface, ip, &prefix, &port, &mbits,
               &used) != 5 ||
        static_cast<size_t>(used) != item.size())
      return false;
    in_addr a{};
    if (inet_pton(AF_INET, ip, &a) != 1 || prefix < 0 || prefix > 32 || port > 65535 ||
        !std::isfinite(mbits) || mbits < 0)
      return false;
    Rail r;
    r.iface = iface;
    r.ip = ip;
    r.prefix = prefix;
    r.port = static_cast<uint16_t>(port);
    r.mbits = mbits;
    out->push_back(r);
  }
  return !out->empty();
}

}  // namespace ccmpi::bootstrap
