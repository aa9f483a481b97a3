#pragma once
// Tunables: declared once (environment name, default, help), read from the environment
// at first use, listed by `ccmpi_info`. Declare at namespace scope in the layer that owns
// the knob:
//
//   static ccmpi::Tunable<size_t> kEagerLimit("CCMPI_EAGER_LIMIT", 65536,
//                                             "largest message sent eagerly (bytes)");
//   ... kEagerLimit.get() ...
//
// Sizes accept k/m/g suffixes (powers of 1024). Booleans accept 0/1/on/off/yes/no/true/false.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ccmpi {

class TunableBase {
 public:
  TunableBase(const char* name, const char* help);
  virtual ~TunableBase() = default;
  const char* name() const { return name_; }
  const char* help() const { return help_; }
  virtual std::string defaultString() const = 0;
  virtual std::string currentString() const = 0;
  // Re-reads the environment (tests, and MPI_Init after a launcher changed it).
  virtual void reload() = 0;
  // Whether the environment set it (and whether the value parsed).
  bool fromEnv() const { return fromEnv_; }

 protected:
  const char* envValue() const;  // nullptr when unset
  void markFromEnv(bool v) { fromEnv_ = v; }

 private:
  const char* name_;
  const char* help_;
  bool fromEnv_ = false;
};

// All tunables, in declaration order across the library.
const std::vector<TunableBase*>& allTunables();

bool parseSize(const std::string& text, uint64_t* out);
bool parseBool(const std::string& text, bool* out);

template <typename T>
class Tunable final : public TunableBase {
 public:
  Tunable(const char* name, T def, const char* help) : TunableBase(name, help), def_(def) {}
  const T& get() {
    if (!loaded_) reload();
    return value_;
  }
  void set(const T& v) {
    value_ = v;
    loaded_ = true;
  }
  std::string defaultString() const override;
  std::string currentString() const override;
  void reload() override;

 private:
  T def_;
  T value_{};
  bool loaded_ = false;
};

extern template class Tunable<int>;
extern template class Tunable<int64_t>;
extern template class Tunable<uint64_t>;
extern template class Tunable<bool>;
extern template class Tunable<double>;
extern template class Tunable<std::string>;

}  // namespace ccmpi
