// Pattern and schedule files (see files.h).
#include "sched/files.h"

#include <sstream>
#include <vector>

#include "base/tunables.h"

namespace ccmpi::sched {
namespace {

std::vector<std::string> words(std::string line) {
  if (size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
  std::istringstream in(line);
  std::vector<std::string> w;
  for (std::string x; in >> x;) w.push_back(x);
  return w;
}

bool parseInt(const std::string& s, int* out) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  *out = std::stoi(s);
  return true;
}

bool parseMessage(const std::vector<std::string>& w, Message* m) {
  uint64_t bytes = 0;
  if (w.size() != 3 || !parseInt(w[0], &m->src) || !parseInt(w[1], &m->dst) ||
      !parseSize(w[2], &bytes) || bytes > static_cast<uint64_t>(INT64_MAX))
    return false;
  m->bytes = static_cast<int64_t>(bytes);
  return true;
}

std::string at(int line, const std::string& what) {
  return "line " + std::to_string(line) + ": " + what;
}

}  // namespace

bool parsePattern(const std::string& text, Pattern* out, std::string* error) {
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const std::vector<std::string> w = words(line);
    if (w.empty()) continue;
    Message m;
    if (!parseMessage(w, &m)) {
      *error = at(n, "expected SRC DST BYTES");
      return false;
    }
    out->push_back(m);
  }
  return true;
}

std::string formatSchedule(int hosts, Scheduler which, const Phases& phases) {
  std::ostringstream o;
  o << "ccmpi-schedule 1\nhosts " << hosts << "\nscheduler "
    << (which == Scheduler::kGreedy ? "greedy" : "all-to-all-based") << "\n";
  for (const Phase& p : phases) {
    o << (p.small ? "phase small\n" : "phase\n");
    for (const Message& m : p.messages) o << m.src << ' ' << m.dst << ' ' << m.bytes << '\n';
  }
  return o.str();
}

bool parseSchedule(const std::string& text, int* hosts, Phases* out, std::string* error) {
  std::istringstream in(text);
  std::string line;
  int n = 0;
  bool header = false;
  *hosts = 0;
  while (std::getline(in, line)) {
    ++n;
    const std::vector<std::string> w = words(line);
    if (w.empty()) continue;
    if (!header) {
      if (w.size() != 2 || w[0] != "ccmpi-schedule" || w[1] != "1") {
        *error = at(n, "not a ccmpi-schedule 1 file");
        return false;
      }
      header = true;
    } else if (w[0] == "hosts") {
      if (w.size() != 2 || !parseInt(w[1], hosts) || *hosts < 1) {
        *error = at(n, "bad host count");
        return false;
      }
    } else if (w[0] == "scheduler") {
      continue;  // informational
    } else if (w[0] == "phase") {
      if (w.size() > 2 || (w.size() == 2 && w[1] != "small")) {
        *error = at(n, "expected 'phase' or 'phase small'");
        return false;
      }
      out->push_back(Phase{{}, w.size() == 2});
    } else {
      Message m;
      if (out->empty() || !parseMessage(w, &m)) {
        *error = at(n, out->empty() ? "message before the first phase" : "expected SRC DST BYTES");
        return false;
      }
      if (*hosts < 1 || m.src >= *hosts || m.dst >= *hosts) {
        *error = at(n, "rank outside the host count");
        return false;
      }
      out->back().messages.push_back(m);
    }
  }
  if (!header || *hosts < 1) {
    *error = "missing header or host count";
    return false;
  }
  return true;
}

}  // namespace ccmpi::sched
