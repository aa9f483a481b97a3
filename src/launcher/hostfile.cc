// Hostfile / host list parsing and rank placement (see hostfile.h).
#include "launcher/hostfile.h"

#include <charconv>
#include <map>

namespace ccmpi::launcher {
namespace {

constexpr int kMaxSlots = 1 << 20;

bool validName(std::string_view name) {
  if (name.empty() || name.size() > 255) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-' || c == '@';
    if (!ok) return false;
  }
  return name.front() != '-';
}

bool parseCount(std::string_view s, int* out) {
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < 1 || v > kMaxSlots) return false;
  *out = v;
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// "name" or "name:N".
bool parseEntry(std::string_view entry, HostSlots* host, std::string* error) {
  std::size_t colon = entry.find(':');
  std::string_view name = entry.substr(0, colon);
  host->slots = 1;
  if (colon != std::string_view::npos && !parseCount(entry.substr(colon + 1), &host->slots)) {
    *error = "bad slot count in '" + std::string(entry) + "' (expected name:N with N >= 1)";
    return false;
  }
  if (!validName(name)) {
    *error = "bad host name '" + std::string(name) + "'";
    return false;
  }
  host->name = std::string(name);
  return true;
}

}  // namespace

bool parseHostfile(std::string_view text, std::vector<HostSlots>* hosts, std::string* error) {
  hosts->clear();
  int lineNo = 0;
  while (!text.empty()) {
    std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++lineNo;
    line = trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;

    auto fail = [&](const std::string& why) {
      *error = "line " + std::to_string(lineNo) + ": " + why;
      return false;
    };
    std::vector<std::string_view> words;
    while (!line.empty()) {
      std::size_t end = line.find_first_of(" \t");
      words.push_back(line.substr(0, end));
      line = trim(end == std::string_view::npos ? std::string_view() : line.substr(end));
    }
    HostSlots host;
    std::string why;
    if (!parseEntry(words[0], &host, &why)) return fail(why);
    bool colonSlots = words[0].find(':') != std::string_view::npos;
    bool sawSlots = false;
    for (std::size_t i = 1; i < words.size(); ++i) {
      std::string_view w = words[i];
      std::size_t eq = w.find('=');
      std::string_view key = w.substr(0, eq);
      std::string_view value = eq == std::string_view::npos ? std::string_view() : w.substr(eq + 1);
      if (key == "slots" || key == "cpu") {
        if (colonSlots || sawSlots) return fail("slots given twice for '" + host.name + "'");
        if (!parseCount(value, &host.slots))
          return fail("bad slot count '" + std::string(w) + "' (expected slots=N with N >= 1)");
        sawSlots = true;
      } else if (key == "max_slots" || key == "max-slots") {
        int ignored = 0;
        if (!parseCount(value, &ignored)) return fail("bad value '" + std::string(w) + "'");
      } else {
        return fail("unknown attribute '" + std::string(w) + "' (expected slots=N)");
      }
    }
    hosts->push_back(host);
  }
  if (hosts->empty()) {
    *error = "no hosts in hostfile";
    return false;
  }
  return true;
}

bool parseHostList(std::string_view list, std::vector<HostSlots>* hosts, std::string* error) {
  hosts->clear();
  while (true) {
    std::size_t comma = list.find(',');
    std::string_view entry = trim(list.substr(0, comma));
    if (entry.empty()) {
      *error = "empty entry in host list";
      return false;
    }
    HostSlots host;
    if (!parseEntry(entry, &host, error)) return false;
    hosts->push_back(host);
    if (comma == std::string_view::npos) break;
    list = list.substr(comma + 1);
  }
  return true;
}

std::vector<HostSlots> mergeHosts(const std::vector<HostSlots>& hosts) {
  std::vector<HostSlots> merged;
  std::map<std::string, std::size_t> index;
  for (const auto& h : hosts) {
    auto it = index.find(h.name);
    if (it == index.end()) {
      index[h.name] = merged.size();
      merged.push_back(h);
    } else {
      merged[it->second].slots = std::min(kMaxSlots, merged[it->second].slots + h.slots);
    }
  }
  return merged;
}

Placement placeRanks(const std::vector<HostSlots>& hosts, int nranks) {
  Placement p;
  p.ranksOfHost.resize(hosts.size());
  if (hosts.empty() || nranks <= 0) return p;
  p.hostOfRank.resize(static_cast<std::size_t>(nranks));
  p.localRankOf.resize(static_cast<std::size_t>(nranks));
  std::size_t host = 0;
  int used = 0;
  long long total = 0;
  for (const auto& h : hosts) total += h.slots;
  p.oversubscribed = nranks > total;
  for (int r = 0; r < nranks; ++r) {
    while (used >= hosts[host].slots) {
      host = (host + 1) % hosts.size();
      used = 0;
    }
    p.hostOfRank[static_cast<std::size_t>(r)] = static_cast<int>(host);
    p.localRankOf[static_cast<std::size_t>(r)] = static_cast<int>(p.ranksOfHost[host].size());
    p.ranksOfHost[host].push_back(r);
    ++used;
  }
  return p;
}

Placement placeRanksByNode(const std::vector<HostSlots>& hosts, int nranks) {
  Placement p;
  p.ranksOfHost.resize(hosts.size());
  if (hosts.empty() || nranks <= 0) return p;
  p.hostOfRank.resize(static_cast<std::size_t>(nranks));
  p.localRankOf.resize(static_cast<std::size_t>(nranks));
  long long total = 0;
  for (const auto& h : hosts) total += h.slots;
  p.oversubscribed = nranks > total;
  std::size_t host = 0;
  for (int r = 0; r < nranks; ++r) {
    if (r < total) {
      while (static_cast<int>(p.ranksOfHost[host].size()) >= hosts[host].slots)
        host = (host + 1) % hosts.size();
    }
    p.hostOfRank[static_cast<std::size_t>(r)] = static_cast<int>(host);
    p.localRankOf[static_cast<std::size_t>(r)] = static_cast<int>(p.ranksOfHost[host].size());
    p.ranksOfHost[host].push_back(r);
    host = (host + 1) % hosts.size();
  }
  return p;
}

std::string processMapping(const Placement& placement) {
  // Blocks of consecutive ranks on one host: (host, size).
  std::vector<std::pair<int, int>> blocks;
  for (int host : placement.hostOfRank) {
    if (!blocks.empty() && blocks.back().first == host)
      ++blocks.back().second;
    else
      blocks.emplace_back(host, 1);
  }
  std::string out = "(vector";
  for (std::size_t i = 0; i < blocks.size();) {
    // Merge a run of blocks on hosts h, h+1, ... with equal sizes.
    std::size_t j = i + 1;
    while (j < blocks.size() && blocks[j].first == blocks[j - 1].first + 1 &&
           blocks[j].second == blocks[i].second)
      ++j;
    out += ",(" + std::to_string(blocks[i].first) + "," + std::to_string(j - i) + "," +
           std::to_string(blocks[i].second) + ")";
    i = j;
  }
  out += ")";
  return out;
}

bool isLocalHostName(std::string_view name, std::string_view hostname) {
  if (name == "localhost" || name == "localhost.localdomain" || name.substr(0, 4) == "127.")
    return true;
  if (hostname.empty()) return false;
  if (name == hostname) return true;
  std::string_view shortName = hostname.substr(0, hostname.find('.'));
  return name == shortName;
}

}  // namespace ccmpi::launcher
