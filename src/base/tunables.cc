// Tunable registry and value parsing.
#include "base/tunables.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "base/log.h"

namespace ccmpi {
namespace {

std::vector<TunableBase*>& registry() {
  static std::vector<TunableBase*> r;
  return r;
}

template <typename T>
std::string toString(const T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    return v;
  } else if constexpr (std::is_same_v<T, bool>) {
    return v ? "on" : "off";
  } else {
    std::ostringstream os;
    os << v;
    return os.str();
  }
}

template <typename T>
bool parseValue(const std::string& text, T* out) {
  if constexpr (std::is_same_v<T, std::string>) {
    *out = text;
    return true;
  } else if constexpr (std::is_same_v<T, bool>) {
    return parseBool(text, out);
  } else if constexpr (std::is_same_v<T, double>) {
    char* end = nullptr;
    errno = 0;
    double d = strtod(text.c_str(), &end);
    if (errno || end == text.c_str() || *end) return false;
    *out = d;
    return true;
  } else if constexpr (std::is_signed_v<T>) {
    bool neg = !text.empty() && text[0] == '-';
    uint64_t mag;
    if (!parseSize(neg ? text.substr(1) : text, &mag)) return false;
    *out = neg ? -static_cast<T>(mag) : static_cast<T>(mag);
    return true;
  } else {
    uint64_t v;
    if (!parseSize(text, &v)) return false;
    *out = static_cast<T>(v);
    return true;
  }
}

}  // namespace

TunableBase::TunableBase(const char* name, const char* help) : name_(name), help_(help) {
  registry().push_back(this);
}

const char* TunableBase::envValue() const {
  return getenv(name_);
}

const std::vector<TunableBase*>& allTunables() {
  return registry();
}

bool parseSize(const std::string& text, uint64_t* out) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  unsigned long long v = strtoull(text.c_str(), &end, 0);
  if (errno || end == text.c_str() || text[0] == '-') return false;
  uint64_t mult = 1;
  if (*end) {
    switch (*end) {
      case 'k':
      case 'K':
        mult = 1ull << 10;
        break;
      case 'm':
      case 'M':
        mult = 1ull << 20;
        break;
      case 'g':
      case 'G':
        mult = 1ull << 30;
        break;
      default:
        return false;
    }
    ++end;
    if (*end == 'b' || *end == 'B' || *end == 'i') ++end;
    if (*end == 'B') ++end;
    if (*end) return false;
  }
  *out = v * mult;
  return true;
}

bool parseBool(const std::string& text, bool* out) {
  const char* t = text.c_str();
  if (!strcasecmp(t, "1") || !strcasecmp(t, "on") || !strcasecmp(t, "yes") ||
      !strcasecmp(t, "true")) {
    *out = true;
    return true;
  }
  if (!strcasecmp(t, "0") || !strcasecmp(t, "off") || !strcasecmp(t, "no") ||
      !strcasecmp(t, "false")) {
    *out = false;
    return true;
  }
  return false;
}

template <typename T>
std::string Tunable<T>::defaultString() const {
  return toString(def_);
}

template <typename T>
std::string Tunable<T>::currentString() const {
  return loaded_ ? toString(value_) : (envValue() ? envValue() : toString(def_));
}

template <typename T>
void Tunable<T>::reload() {
  value_ = def_;
  loaded_ = true;
  markFromEnv(false);
  if (const char* e = envValue()) {
    T v{};
    if (parseValue(std::string(e), &v)) {
      value_ = v;
      markFromEnv(true);
    } else {
      log::error("ignoring %s=%s: not a valid value (%s); using %s", name(), e, help(),
                 toString(def_).c_str());
    }
  }
}

template class Tunable<int>;
template class Tunable<int64_t>;
template class Tunable<uint64_t>;
template class Tunable<bool>;
template class Tunable<double>;
template class Tunable<std::string>;

}  // namespace ccmpi
