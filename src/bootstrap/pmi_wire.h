#pragma once
// PMI-1 wire format: pure parsing and formatting, no I/O.
//
// A PMI-1 message is one line of space-separated `key=value` tokens ending in '\n'. The
// first token names the command: `cmd=<name>` (or `mcmd=<name>` for the multi-line spawn
// command, which we only recognise in order to refuse it). A token is split at its FIRST
// '=', so a value may contain further '=' characters, but never a space or a newline; a
// token without '=' is a key with an empty value (as MPICH Hydra reads it). Runs of spaces
// separate tokens like a single one.
//
// Values we put are escaped so any byte string survives the trip through any server:
// printable ASCII other than '%' and '=' passes unchanged, every other byte becomes %XX
// (upper-case hex). Short values like "10.0.0.1:4242" or hex strings are thus sent
// verbatim and stay readable by other PMI clients. Keys are not escaped; they must be
// printable ASCII without space, '=' or '%'.
//
// This file is shared by the client (libccmpi) and the server (mpirun); it depends on
// nothing but the standard library.
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ccmpi::bootstrap {

// Limits our server advertises in `cmd=maxes` (the same as MPICH Hydra's).
inline constexpr int kPmiKvsNameMax = 256;
inline constexpr int kPmiKeyLenMax = 64;
inline constexpr int kPmiValLenMax = 1024;
// Longest line either side accepts (a put of the longest key and value fits easily).
inline constexpr std::size_t kPmiMaxLine = 16 * 1024;

struct PmiMessage {
  std::string cmd;     // the command name (value of the leading cmd=/mcmd= token)
  bool multi = false;  // the line began with mcmd= rather than cmd=
  std::vector<std::pair<std::string, std::string>> args;  // the other tokens, in order

  // Value of the first token named `key`, or nullptr.
  const std::string* find(std::string_view key) const;
};

// Parses one line (a trailing "\n" or "\r\n" is ignored). Returns false and sets *error
// if the line is empty, does not start with cmd=/mcmd=, or has a token with an empty key.
bool parsePmiLine(std::string_view line, PmiMessage* out, std::string* error);

// "cmd=<cmd> k1=v1 k2=v2\n". Arguments must already be valid tokens (see isPmiKey /
// escapePmiValue); the function does not check.
std::string formatPmiLine(std::string_view cmd,
                          const std::vector<std::pair<std::string, std::string>>& args = {});

// True if `key` is a usable key: 1..kPmiKeyLenMax-1 bytes of printable ASCII other than
// space, '=' and '%'. `maxLen` overrides the length limit (the server's keylen_max - 1).
bool isPmiKey(std::string_view key, std::size_t maxLen = kPmiKeyLenMax - 1);

// True if `s` can be sent as a value verbatim: no space, newline, NUL or other control
// byte (a token value the parser reads back unchanged; may be empty).
bool isPmiToken(std::string_view s);

std::string escapePmiValue(std::string_view raw);
// Reverses escapePmiValue. Returns false on a malformed escape ("%G1", "%4").
bool unescapePmiValue(std::string_view wire, std::string* raw);

// Strict decimal integer (optional leading '-'); false on anything else or overflow.
bool parsePmiInt(std::string_view s, int* out);

}  // namespace ccmpi::bootstrap
