// libFuzzer target: the PMI-1 wire (src/bootstrap/pmi_wire) and mpirun's PMI server
// (src/launcher/pmi_server) fed lines from a hostile or broken local process. The parser
// and the value escaping must never crash, and what parses formats and parses back to the
// same message; escaping any bytes and unescaping gives them back. The server takes a
// sequence of lines from 4 ranks (each line's first byte picks the rank) and must never
// crash, answer a rank with a line that does not parse, or go on after a protocol error.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "bootstrap/pmi_wire.h"
#include "launcher/pmi_server.h"

using namespace ccmpi;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view all(reinterpret_cast<const char*>(data), size);

  // Escaping round trip, and unescaping arbitrary input.
  std::string raw;
  if (!bootstrap::unescapePmiValue(bootstrap::escapePmiValue(all), &raw) || raw != all) abort();
  if (!bootstrap::isPmiToken(bootstrap::escapePmiValue(all))) abort();
  (void)bootstrap::unescapePmiValue(all, &raw);
  int n = 0;
  (void)bootstrap::parsePmiInt(all, &n);

  // The whole input as one line.
  bootstrap::PmiMessage m;
  std::string error;
  if (bootstrap::parsePmiLine(all, &m, &error)) {
    if (!m.multi && bootstrap::isPmiToken(m.cmd)) {
      bool tokens = true;
      for (const auto& [k, v] : m.args)
        tokens = tokens && bootstrap::isPmiToken(k) && k.find('=') == std::string::npos &&
                 !k.empty() && bootstrap::isPmiToken(v);
      if (tokens) {
        bootstrap::PmiMessage again;
        if (!bootstrap::parsePmiLine(bootstrap::formatPmiLine(m.cmd, m.args), &again, &error) ||
            again.cmd != m.cmd || again.args != m.args)
          abort();
      }
    }
  } else if (error.empty()) {
    abort();
  }

  // The server: lines separated by '\n'.
  bool stopped = false;
  launcher::PmiServer::Config cfg;
  cfg.size = 4;
  cfg.universeSize = 4;
  cfg.kvsName = "fuzz_kvs";
  cfg.processMapping = "(vector,(0,2,2))";
  launcher::PmiServer::Actions act;
  act.reply = [&](int rank, const std::string& line) {
    if (stopped || rank < 0 || rank >= 4) abort();
    bootstrap::PmiMessage r;
    std::string why;
    if (line.empty() || line.back() != '\n' || !bootstrap::parsePmiLine(line, &r, &why)) abort();
  };
  act.abort = [&](int rank, int) {
    if (rank < 0 || rank >= 4) abort();
    stopped = true;
  };
  act.protocolError = [&](int rank, const std::string& why) {
    if (rank < 0 || rank >= 4 || why.empty()) abort();
    stopped = true;
  };
  act.spawned = [&](int rank, const std::string&) {
    if (rank < 0 || rank >= 4) abort();
  };
  launcher::PmiServer server(cfg, act);
  std::string_view rest = all;
  while (!rest.empty() && !stopped) {
    const std::size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    if (line.empty()) continue;
    const int rank = static_cast<unsigned char>(line[0]) % 4;
    server.handleLine(rank, line.substr(1));
  }
  (void)server.ranksPerCore();
  return 0;
}
