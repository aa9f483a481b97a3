// PMI-1 line parsing/formatting and value escaping (see pmi_wire.h for the format).
#include "bootstrap/pmi_wire.h"

#include <charconv>

namespace ccmpi::bootstrap {
namespace {

bool isPrintable(unsigned char c) {
  return c > 0x20 && c < 0x7f;
}

bool passesVerbatim(unsigned char c) {
  return isPrintable(c) && c != '%' && c != '=';
}

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace

const std::string* PmiMessage::find(std::string_view key) const {
  for (const auto& kv : args)
    if (kv.first == key) return &kv.second;
  return nullptr;
}

bool parsePmiLine(std::string_view line, PmiMessage* out, std::string* error) {
  out->cmd.clear();
  out->multi = false;
  out->args.clear();
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);

  bool first = true;
  std::size_t pos = 0;
  while (pos < line.size()) {
    if (line[pos] == ' ') {
      ++pos;
      continue;
    }
    std::size_t end = line.find(' ', pos);
    if (end == std::string_view::npos) end = line.size();
    std::string_view token = line.substr(pos, end - pos);
    pos = end;

    std::size_t eq = token.find('=');
    std::string_view key = token.substr(0, eq);
    std::string_view value =
        eq == std::string_view::npos ? std::string_view() : token.substr(eq + 1);
    if (key.empty()) {
      *error = "token with an empty key: '" + std::string(token) + "'";
      return false;
    }
    if (first) {
      if (key != "cmd" && key != "mcmd") {
        *error = "line does not start with cmd=: '" + std::string(line.substr(0, 80)) + "'";
        return false;
      }
      if (value.empty()) {
        *error = "empty command name";
        return false;
      }
      out->cmd = std::string(value);
      out->multi = key == "mcmd";
      first = false;
    } else {
      out->args.emplace_back(std::string(key), std::string(value));
    }
  }
  if (first) {
    *error = "empty line";
    return false;
  }
  return true;
}

std::string formatPmiLine(std::string_view cmd,
                          const std::vector<std::pair<std::string, std::string>>& args) {
  std::string line = "cmd=";
  line += cmd;
  for (const auto& kv : args) {
    line += ' ';
    line += kv.first;
    line += '=';
    line += kv.second;
  }
  line += '\n';
  return line;
}

bool isPmiKey(std::string_view key, std::size_t maxLen) {
  if (key.empty() || key.size() > maxLen) return false;
  for (unsigned char c : key)
    if (!passesVerbatim(c)) return false;
  return true;
}

bool isPmiToken(std::string_view s) {
  for (unsigned char c : s)
    if (!isPrintable(c)) return false;
  return true;
}

std::string escapePmiValue(std::string_view raw) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(raw.size());
  for (unsigned char c : raw) {
    if (passesVerbatim(c)) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

bool unescapePmiValue(std::string_view wire, std::string* raw) {
  raw->clear();
  raw->reserve(wire.size());
  for (std::size_t i = 0; i < wire.size(); ++i) {
    if (wire[i] != '%') {
      *raw += wire[i];
      continue;
    }
    if (i + 2 >= wire.size()) return false;
    int hi = hexValue(wire[i + 1]), lo = hexValue(wire[i + 2]);
    if (hi < 0 || lo < 0) return false;
    *raw += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return true;
}

bool parsePmiInt(std::string_view s, int* out) {
  if (s.empty()) return false;
  const char* first = s.data();
  const char* last = s.data() + s.size();
  int value = 0;
  auto [ptr, ec] = std::from_chars(first, last, value);
  if (ec != std::errc() || ptr != last) return false;
  *out = value;
  return true;
}

}  // namespace ccmpi::bootstrap
