// Slurm host list and task count expansion (see slurm_env.h).
#include "bootstrap/slurm_env.h"

#include <charconv>

namespace ccmpi::bootstrap {
namespace {

bool parseNumber(std::string_view s, long* out) {
  if (s.empty() || s.size() > 18) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size() && *out >= 0;
}

std::string padded(long value, std::size_t width) {
  std::string s = std::to_string(value);
  if (s.size() < width) s.insert(0, width - s.size(), '0');
  return s;
}

// Expands one name with brackets ("r[1-2]n[01,03]") into *out.
bool expandOne(std::string_view item, std::vector<std::string>* out, std::string* error) {
  std::vector<std::string> partial{""};
  std::size_t pos = 0;
  while (pos < item.size()) {
    const std::size_t open = item.find('[', pos);
    const std::string_view literal =
        item.substr(pos, open == std::string_view::npos ? item.npos : open - pos);
    if (literal.find(']') != std::string_view::npos) {
      *error = "unbalanced ']' in '" + std::string(item) + "'";
      return false;
    }
    for (auto& p : partial) p += literal;
    if (open == std::string_view::npos) break;
    const std::size_t close = item.find(']', open);
    if (close == std::string_view::npos) {
      *error = "unbalanced '[' in '" + std::string(item) + "'";
      return false;
    }
    std::vector<std::string> suffixes;
    std::string_view ranges = item.substr(open + 1, close - open - 1);
    std::size_t r = 0;
    while (r <= ranges.size()) {
      std::size_t comma = ranges.find(',', r);
      if (comma == std::string_view::npos) comma = ranges.size();
      const std::string_view range = ranges.substr(r, comma - r);
      const std::size_t dash = range.find('-');
      const std::string_view lo = range.substr(0, dash);
      const std::string_view hi = dash == std::string_view::npos ? lo : range.substr(dash + 1);
      long a = 0, b = 0;
      if (!parseNumber(lo, &a) || !parseNumber(hi, &b) || b < a) {
        *error = "bad range '" + std::string(range) + "' in '" + std::string(item) + "'";
        return false;
      }
      if (static_cast<std::size_t>(b - a) + suffixes.size() >= kMaxSlurmHosts) {
        *error = "too many hosts in '" + std::string(item) + "'";
        return false;
      }
      for (long v = a; v <= b; ++v) suffixes.push_back(padded(v, lo.size()));
      r = comma + 1;
    }
    if (partial.size() * suffixes.size() > kMaxSlurmHosts) {
      *error = "too many hosts in '" + std::string(item) + "'";
      return false;
    }
    std::vector<std::string> next;
    for (const auto& p : partial)
      for (const auto& s : suffixes) next.push_back(p + s);
    partial.swap(next);
    pos = close + 1;
  }
  for (auto& p : partial) {
    if (p.empty()) {
      *error = "empty host name in '" + std::string(item) + "'";
      return false;
    }
    out->push_back(std::move(p));
  }
  return true;
}

}  // namespace

bool expandSlurmHostList(std::string_view list, std::vector<std::string>* hosts,
                         std::string* error) {
  hosts->clear();
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= list.size(); ++i) {
    const char c = i < list.size() ? list[i] : ',';
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (depth < 0 || depth > 1) {
      *error = "unbalanced brackets in '" + std::string(list) + "'";
      return false;
    }
    if (c == ',' && depth == 0) {
      const std::string_view item = list.substr(start, i - start);
      start = i + 1;
      if (item.empty()) continue;
      if (!expandOne(item, hosts, error)) return false;
      if (hosts->size() > kMaxSlurmHosts) {
        *error = "too many hosts";
        return false;
      }
    }
  }
  if (depth != 0) {
    *error = "unbalanced brackets in '" + std::string(list) + "'";
    return false;
  }
  if (hosts->empty()) {
    *error = "empty host list";
    return false;
  }
  return true;
}

bool parseSlurmTaskCounts(std::string_view list, std::vector<int>* counts, std::string* error) {
  counts->clear();
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t comma = list.find(',', start);
    if (comma == std::string_view::npos) comma = list.size();
    std::string_view item = list.substr(start, comma - start);
    start = comma + 1;
    long repeat = 1, count = 0;
    if (const std::size_t paren = item.find('('); paren != std::string_view::npos) {
      std::string_view rep = item.substr(paren);
      if (rep.size() < 4 || rep.substr(0, 2) != "(x" || rep.back() != ')' ||
          !parseNumber(rep.substr(2, rep.size() - 3), &repeat) || repeat < 1) {
        *error = "bad repetition '" + std::string(item) + "'";
        return false;
      }
      item = item.substr(0, paren);
    }
    if (!parseNumber(item, &count) || count > 1000000) {
      *error = "bad task count '" + std::string(item) + "' in '" + std::string(list) + "'";
      return false;
    }
    if (static_cast<std::size_t>(repeat) + counts->size() > kMaxSlurmHosts) {
      *error = "too many nodes in '" + std::string(list) + "'";
      return false;
    }
    counts->insert(counts->end(), static_cast<std::size_t>(repeat), static_cast<int>(count));
  }
  return true;
}

}  // namespace ccmpi::bootstrap
