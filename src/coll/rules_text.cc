// The rules' text form (rules.h): parsing and printing, with no dependency on the rest of
// the library (the rules fuzzer builds it alone).
#include <cctype>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "base/tunables.h"
#include "coll/rules.h"

namespace ccmpi::coll {
namespace {

bool parseRange(const std::string& t, int64_t* lo, int64_t* hi, bool sizes) {
  auto num = [sizes](const std::string& s, int64_t* v) {
    uint64_t u = 0;
    if (s.empty()) return false;
    if (sizes) {
      if (!parseSize(s, &u)) return false;
    } else {
      if (s.size() > 18) return false;  // std::stoull would throw past 2^64
      for (char ch : s)
        if (!isdigit(static_cast<unsigned char>(ch))) return false;
      u = std::stoull(s);
    }
    if (u > static_cast<uint64_t>(INT64_MAX)) return false;
    *v = static_cast<int64_t>(u);
    return true;
  };
  if (t == "*") return true;
  const size_t dash = t.find('-');
  if (dash == std::string::npos) {
    if (!num(t, lo)) return false;
    *hi = *lo;
    return true;
  }
  if (!num(t.substr(0, dash), lo)) return false;
  const std::string h = t.substr(dash + 1);
  if (h != "*" && !num(h, hi)) return false;
  return *lo <= *hi;
}

// Byte ranges (max INT64_MAX) print with k/m suffixes, which only they accept; counts
// (max 0x7fffffff) print plain.
std::string rangeText(int64_t lo, int64_t hi, int64_t max) {
  if (lo == 0 && hi == max) return "*";
  if (lo == 1 && hi == max && max == 0x7fffffff) return "*";
  const bool bytes = max == INT64_MAX;
  auto show = [bytes](int64_t v) {
    if (bytes && v != 0 && v % (1 << 20) == 0) return std::to_string(v >> 20) + "m";
    if (bytes && v != 0 && v % 1024 == 0) return std::to_string(v >> 10) + "k";
    return std::to_string(v);
  };
  if (lo == hi) return show(lo);
  return show(lo) + "-" + (hi == max ? std::string("*") : show(hi));
}

// A collective's or an algorithm's name: letters, digits, '_', '-' and '.', at most 64.
bool ruleName(const std::string& s) {
  if (s.empty() || s.size() > 64) return false;
  for (char ch : s)
    if (!isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '-' && ch != '.')
      return false;
  return true;
}

}  // namespace

bool parseRules(const std::string& text, std::vector<Rule>* out, std::string* error) {
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string x; words >> x;) w.push_back(x);
    if (w.empty()) continue;
    if (w.size() < 4 || w.size() > 8) {
      *error = "line " + std::to_string(n) +
               ": expected 4 to 8 fields (collective ranks bytes algorithm [hosts "
               "[ranks-per-core [ranks-per-host [rails]]]]), found " +
               std::to_string(w.size());
      return false;
    }
    for (int k : {0, 3})
      if (!ruleName(w[static_cast<size_t>(k)])) {
        *error = "line " + std::to_string(n) + ": bad " + (k ? "algorithm" : "collective") +
                 " name (letters, digits, '_', '-' and '.', at most 64)";
        return false;
      }
    // Initialized in one piece: GCC 12 with -fsanitize=thread warned that assigning the
    // names might read an uninitialized string (-Wmaybe-uninitialized, a false alarm).
    Rule r{.collective = w[0], .algorithm = w[3], .line = n};
    // A count field (no suffixes): its range, from `min` up to 2^31-1, into *lo and *hi
    // (left as they are for a field the line does not have).
    auto counts = [&](size_t k, int64_t min, const char* what, int* lo, int* hi) {
      if (k >= w.size()) return true;
      int64_t a = min, b = 0x7fffffff;
      if (parseRange(w[k], &a, &b, false) && a >= min && b <= 0x7fffffff) {
        *lo = static_cast<int>(a);
        *hi = static_cast<int>(b);
        return true;
      }
      *error = "line " + std::to_string(n) + ": bad " + what + " range '" + w[k] +
               "' (N, A-B, A-* or *, from " + std::to_string(min) + ")";
      return false;
    };
    if (!counts(1, 1, "communicator-size", &r.minRanks, &r.maxRanks)) return false;
    if (!parseRange(w[2], &r.minBytes, &r.maxBytes, true)) {
      *error = "line " + std::to_string(n) + ": bad message-size range '" + w[2] +
               "' (N, A-B, A-* or *, with k/m/g suffixes)";
      return false;
    }
    if (!counts(4, 1, "host-count", &r.minHosts, &r.maxHosts) ||
        !counts(5, 0, "ranks-per-core", &r.minRanksPerCore, &r.maxRanksPerCore) ||
        !counts(6, 1, "ranks-per-host", &r.minRanksPerHost, &r.maxRanksPerHost) ||
        !counts(7, 1, "rails", &r.minRails, &r.maxRails))
      return false;
    out->push_back(std::move(r));
  }
  return true;
}

std::string ruleText(const Rule& r) {
  // Columns padded as "%-22s %-8s %-12s %s" would, with no length limit.
  auto column = [](std::string s, size_t width) {
    if (s.size() < width) s.resize(width, ' ');
    return s + " ";
  };
  std::string text = column(r.collective, 22) +
                     column(rangeText(r.minRanks, r.maxRanks, 0x7fffffff), 8) +
                     column(rangeText(r.minBytes, r.maxBytes, INT64_MAX), 12) + r.algorithm;
  const bool rails = r.minRails != 1 || r.maxRails != 0x7fffffff;
  const bool perHost = rails || r.minRanksPerHost != 1 || r.maxRanksPerHost != 0x7fffffff;
  const bool perCore = perHost || r.minRanksPerCore != 0 || r.maxRanksPerCore != 0x7fffffff;
  if (perCore || r.minHosts != 1 || r.maxHosts != 0x7fffffff)
    text += " " + rangeText(r.minHosts, r.maxHosts, 0x7fffffff);
  if (perCore && r.minRanksPerCore == 0 && r.maxRanksPerCore == 0x7fffffff) {
    text += " *";
  } else if (perCore) {  // not rangeText: "1-*" is not "*" here, and no k/m suffixes
    text += " " + std::to_string(r.minRanksPerCore);
    if (r.maxRanksPerCore == 0x7fffffff)
      text += "-*";
    else if (r.maxRanksPerCore != r.minRanksPerCore)
      text += "-" + std::to_string(r.maxRanksPerCore);
  }
  if (perHost) text += " " + rangeText(r.minRanksPerHost, r.maxRanksPerHost, 0x7fffffff);
  if (rails) text += " " + rangeText(r.minRails, r.maxRails, 0x7fffffff);
  return text;
}

}  // namespace ccmpi::coll
