#pragma once
// mpirun command-line parsing (pure; unit tested). Options come before the program;
// each may be spelled with one or two dashes, and `--opt=value` works for options that
// take one value. `--` ends the options. See usageText() for the list.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "launcher/hostfile.h"

namespace ccmpi::launcher {

struct Options {
  int np = -1;                      // -n; -1 = not given
  std::string hostfile;             // --hostfile
  std::vector<HostSlots> hostList;  // -H (already parsed)
  std::vector<std::string> agent;   // --launcher, split at whitespace; empty = default
  // -x NAME (value from our environment: nullopt) or -x NAME=VALUE.
  std::vector<std::pair<std::string, std::optional<std::string>>> exports;
  std::vector<std::pair<std::string, std::string>> env;  // --env NAME=VALUE, -genv NAME VALUE
  std::string iface;                                     // --iface
  std::string compress;                                  // --compress off|on|auto
  std::string wdir;                                      // --wdir
  bool tagOutput = false;    // --tag-output: "[1,RANK]<stdout>:" (Open MPI)
  bool labelOutput = false;  // -l, --prepend-rank: "[RANK] " (MPICH Hydra)
  bool oversubscribe = false;
  std::string mapBy;   // --map-by slot|node|core|socket ("" = slot)
  std::string bindTo;  // --bind-to none|core|socket ("" = the ranks' CCMPI_BIND)
  bool reportBindings = false;
  int ppn = -1;      // -ppn, -npernode, -N: ranks per host; -1 = not given
  int timeout = -1;  // --timeout seconds (else $MPIEXEC_TIMEOUT); -1 = none
  bool verbose = false;
  bool help = false;
  bool version = false;
  std::vector<std::string> command;  // program and its arguments
};

// argv excludes the program name. Returns false with a message on a bad command line.
bool parseOptions(const std::vector<std::string>& argv, Options* options, std::string* error);
// Non-empty for options of Open MPI's mpirun or MPICH's Hydra that ccmpi's mpirun knows
// but does not support: the message says so (and what to use instead, if anything).
std::string unsupportedOptionMessage(const std::string& name);
const char* usageText();

// Splits an agent command at runs of whitespace ("ssh -x" -> {"ssh", "-x"}).
std::vector<std::string> splitCommand(const std::string& command);

// True for a usable environment variable name ([A-Za-z_][A-Za-z0-9_]*).
bool isEnvName(const std::string& name);

}  // namespace ccmpi::launcher
