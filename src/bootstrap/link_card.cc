// Link cards (see link_card.h).
#include "bootstrap/link_card.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ccmpi::bootstrap {

std::string formatLinkCard(double mbits, const std::string& how) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.17g", mbits > 0 ? mbits : 0.0);
  return std::string(buf) + " " + how;
}

bool parseLinkCard(const std::string& card, double* mbits, std::string* how) {
  const char* s = card.c_str();
  char* end = nullptr;
  const double v = strtod(s, &end);
  if (end == s || !std::isfinite(v) || v < 0) return false;
  if (*end != '\0' && *end != ' ') return false;
  *mbits = v;
  *how = *end == ' ' ? std::string(end + 1) : std::string();
  return true;
}

std::string combineLinkCards(const std::vector<std::string>& cards) {
  double slowest = 0;
  std::string where;
  size_t none = 0, bad = 0;
  for (const std::string& c : cards) {
    double v = 0;
    std::string how;
    if (!parseLinkCard(c, &v, &how)) {
      ++bad;
      continue;
    }
    if (v <= 0) {
      if (where.empty() && slowest <= 0) where = how;  // why nothing was found, if nobody did
      ++none;
      continue;
    }
    if (slowest <= 0 || v < slowest) {
      slowest = v;
      where = how;
    }
  }
  char tail[96];
  if (slowest > 0 && none + bad > 0)
    snprintf(tail, sizeof tail, " (slowest of %zu ranks; %zu found nothing)", cards.size(),
             none + bad);
  else if (slowest > 0)
    snprintf(tail, sizeof tail, " (slowest of %zu ranks)", cards.size());
  else
    snprintf(tail, sizeof tail, " (no rank of %zu found a rate)", cards.size());
  return formatLinkCard(slowest, where + tail);
}

}  // namespace ccmpi::bootstrap
