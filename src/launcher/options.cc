// mpirun option parsing (see options.h).
#include "launcher/options.h"

#include <charconv>

namespace ccmpi::launcher {

const char* usageText() {
  return R"(usage: mpirun [options] program [args...]     (mpiexec is the same program)

  -n, -np, -c N            number of ranks (default: total slots of the hosts, else 1)
  -H, --host LIST          hosts, comma separated, each `name` or `name:slots`
  --hostfile, --machinefile, -f FILE
                           hostfile: lines `name [slots=N]` or `name:N`, # comments
  --launcher CMD           agent that starts the proxy on a non-local host; CMD is split at
                           whitespace and run as `CMD... HOST COMMAND...` (default: $CCMPI_LAUNCHER,
                           else one srun for all hosts in a Slurm allocation, else ssh).
                           Hosts named localhost or like this machine are forked directly.
  -x NAME[=VALUE]          export NAME (with our value, or VALUE) to every rank
  --env NAME=VALUE         set NAME=VALUE for every rank (also: -genv NAME VALUE)
  --iface NAME[,NAME...]   set CCMPI_IFACE for every rank (network interface to use; a list
                           names the rails large messages are striped over, docs/multirail.md)
  --compress off|on|auto|CODEC
                           set CCMPI_COMPRESS for every rank (compression of floating-point
                           messages; a codec name means on, with that codec;
                           docs/compression.md)
  --wdir DIR               working directory of the ranks (default: ours)
  --oversubscribe          allow more ranks than the slots (inside a Slurm allocation: more
                           than its tasks, which is refused otherwise), and more than 64
                           per slot (per core where no hosts are given)
  -ppn, -npernode, -N N    N ranks per host (default -n: N times the hosts)
  --map-by slot|node|core|socket
                           placement: slot (default) fills each host's slots in turn, node
                           deals ranks round robin over the hosts; core and socket place
                           as slot and imply --bind-to core or socket
  --bind-to none|auto|core|socket
                           bind each rank with sched_setaffinity (sets CCMPI_BIND): core =
                           its own block of the host's CPUs (one CPU each when ranks
                           outnumber CPUs), socket = the CPUs of that block's socket,
                           auto (default) = core while each rank has a free CPU
  --report-bindings        each rank prints its CPU binding to stderr at MPI_Init
  --timeout SECONDS        kill the job after SECONDS and exit with status 124 (default:
                           $MPIEXEC_TIMEOUT, as MPICH's and Open MPI's mpiexec read it)
  --tag-output             prefix each output line with [1,RANK]<stdout>: or [1,RANK]<stderr>:
  -l, --prepend-rank       prefix each output line with [RANK] (MPICH's -l)
  -v, --verbose            print placement and launch details to stderr
  -h, --help               this text;   -V, --version   the version

Inside a Slurm allocation (salloc, sbatch: SLURM_JOB_NODELIST and SLURM_TASKS_PER_NODE
set) and without -H/--hostfile, the hosts and slots are the allocation's nodes and task
counts; -n defaults to its tasks and may not exceed them without --oversubscribe. The
ranks of this host are forked directly; the other nodes get a proxy each, all started by
one `srun --ntasks-per-node=1 ...`, which connect back to mpirun (CCMPI_SLURM_LAUNCH=srun
uses srun for this host too; --launcher chooses another agent).

Options of Open MPI's or MPICH's mpirun that are not supported (--mca, --rankfile,
--prefix, -bootstrap, ...) are refused by name, as is any unknown option;
--allow-run-as-root, -genvall and -envall are accepted and change nothing.

Every rank gets PMI_FD, PMI_RANK, PMI_SIZE, CCMPI_JOB_ID, CCMPI_JOB_SECRET,
CCMPI_LOCAL_RANK, CCMPI_LOCAL_SIZE, CCMPI_NODE_ID, CCMPI_NUM_NODES, CCMPI_MPIRUN (this
mpirun, for MPI_Comm_spawn) and CCMPI_UNIVERSE_SIZE (MPI_UNIVERSE_SIZE: 64 ranks per slot
or core, at least -n; inherited by spawned jobs; docs/dynamic.md). Local ranks inherit
our environment; remote ranks get the agent's plus all our CCMPI_* variables and -x/--env.
stdin goes to rank 0 only (the others read /dev/null). Output is forwarded line by line.
The exit status is the first failure: a rank's exit code, 128+signal for a rank killed
by a signal, the MPI_Abort code, or 128+signal when mpirun itself is interrupted; on any
failure the other ranks are killed (SIGTERM, then SIGKILL after 1 s).
)";
}

std::vector<std::string> splitCommand(const std::string& command) {
  std::vector<std::string> words;
  std::string word;
  for (char c : command) {
    if (c == ' ' || c == '\t' || c == '\n') {
      if (!word.empty()) words.push_back(std::move(word));
      word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

bool isEnvName(const std::string& name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  for (char c : name) {
    bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

std::string unsupportedOptionMessage(const std::string& name) {
  struct Known {
    const char* name;
    const char* text;
  };
  static const Known kKnown[] = {
      {"mca",
       "(Open MPI MCA parameter) is not supported: ccmpi is tuned with CCMPI_* "
       "variables (ccmpi_info lists them; pass them with -x NAME=VALUE)"},
      {"gmca", "(Open MPI) is not supported: use -x CCMPI_...=VALUE"},
      {"am", "(Open MPI parameter file) is not supported"},
      {"tune", "(Open MPI parameter file) is not supported"},
      {"prefix", "(Open MPI) is not supported: give mpirun's full path instead"},
      {"rankfile", "(Open MPI) is not supported: use -H/--hostfile with --map-by"},
      {"display-map", "(Open MPI) is not supported: use -v, which prints the placement"},
      {"display-allocation", "(Open MPI) is not supported: use -v"},
      {"cpus-per-proc", "(Open MPI) is not supported: use --bind-to core or socket"},
      {"cpus-per-rank", "(Open MPI) is not supported: use --bind-to core or socket"},
      {"pernode", "(Open MPI) is not supported: use -ppn 1"},
      {"bynode", "(Open MPI) is not supported: use --map-by node"},
      {"byslot", "(Open MPI) is not supported: use --map-by slot"},
      {"bind-to-core", "(old Open MPI) is not supported: use --bind-to core"},
      {"bind-to-socket", "(old Open MPI) is not supported: use --bind-to socket"},
      {"rank-by", "(Open MPI) is not supported"},
      {"report-pid", "(Open MPI) is not supported"},
      {"bootstrap", "(MPICH Hydra) is not supported: use --launcher (ssh, srun, ...)"},
      {"bootstrap-exec", "(MPICH Hydra) is not supported: use --launcher"},
      {"rmk", "(MPICH Hydra) is not supported: Slurm allocations are detected by themselves"},
      {"binding", "(MPICH Hydra) is not supported: use --bind-to none, core or socket"},
      {"bind-to-hwthread", "is not supported: use --bind-to core"},
      {"configfile", "(MPICH Hydra) is not supported"},
      {"demux", "(MPICH Hydra) is not supported"},
      {"profile", "(MPICH Hydra) is not supported"},
      {"ckpointlib", "(MPICH Hydra) is not supported"},
      {"gdb", "is not supported"},
      {"genvnone", "(MPICH Hydra) is not supported: local ranks get our environment"},
      {"genvlist", "(MPICH Hydra) is not supported: use -x NAME for each variable"},
      {"outfile-pattern", "(MPICH Hydra) is not supported: output is forwarded to ours"},
      {"errfile-pattern", "(MPICH Hydra) is not supported: output is forwarded to ours"},
      {"output-filename", "(Open MPI) is not supported: output is forwarded to ours"},
      {"x11", "is not supported"},
  };
  for (const auto& k : kKnown)
    if (name == k.name) return k.text;
  return "";
}

bool parseOptions(const std::vector<std::string>& argv, Options* o, std::string* error) {
  *o = Options();
  std::size_t i = 0;
  while (i < argv.size()) {
    const std::string& arg = argv[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') break;  // the program
    std::string name = arg.substr(arg[1] == '-' ? 2 : 1);
    std::optional<std::string> inlineValue;
    if (std::size_t eq = name.find('='); eq != std::string::npos) {
      inlineValue = name.substr(eq + 1);
      name.resize(eq);
    }
    ++i;
    // Fetches the option's value: inline (--opt=v) or the next argument.
    auto value = [&](std::string* v) {
      if (inlineValue) {
        *v = *inlineValue;
        return true;
      }
      if (i >= argv.size()) {
        *error = "option '" + arg + "' needs a value";
        return false;
      }
      *v = argv[i++];
      return true;
    };
    auto noValue = [&]() {
      if (inlineValue) *error = "option '-" + name + "' takes no value";
      return !inlineValue;
    };
    std::string v;
    if (name == "n" || name == "np" || name == "c") {
      if (!value(&v)) return false;
      int n = 0;
      auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
      if (ec != std::errc() || p != v.data() + v.size() || n < 1 || n > 1000000) {
        *error = "bad number of ranks '" + v + "' for " + arg;
        return false;
      }
      o->np = n;
    } else if (name == "hostfile" || name == "machinefile" || name == "f") {
      if (!value(&o->hostfile)) return false;
      if (o->hostfile.empty()) {
        *error = "empty hostfile name";
        return false;
      }
    } else if (name == "H" || name == "host" || name == "hosts") {
      if (!value(&v)) return false;
      std::vector<HostSlots> more;
      if (!parseHostList(v, &more, error)) {
        *error = "-H " + v + ": " + *error;
        return false;
      }
      o->hostList.insert(o->hostList.end(), more.begin(), more.end());
    } else if (name == "launcher" || name == "launcher-exec") {
      if (!value(&v)) return false;
      o->agent = splitCommand(v);
      if (o->agent.empty()) {
        *error = "empty --launcher command";
        return false;
      }
    } else if (name == "x") {
      if (!value(&v)) return false;
      std::size_t eq = v.find('=');
      std::string var = v.substr(0, eq);
      if (!isEnvName(var)) {
        *error = "-x: bad variable name '" + var + "'";
        return false;
      }
      if (eq == std::string::npos)
        o->exports.emplace_back(var, std::nullopt);
      else
        o->exports.emplace_back(var, v.substr(eq + 1));
    } else if (name == "env") {
      if (!value(&v)) return false;
      std::size_t eq = v.find('=');
      if (eq == std::string::npos || !isEnvName(v.substr(0, eq))) {
        *error = "--env expects NAME=VALUE, got '" + v + "'";
        return false;
      }
      o->env.emplace_back(v.substr(0, eq), v.substr(eq + 1));
    } else if (name == "genv") {
      if (inlineValue || i + 2 > argv.size()) {
        *error = "-genv expects NAME VALUE";
        return false;
      }
      if (!isEnvName(argv[i])) {
        *error = "-genv: bad variable name '" + argv[i] + "'";
        return false;
      }
      o->env.emplace_back(argv[i], argv[i + 1]);
      i += 2;
    } else if (name == "iface") {
      if (!value(&o->iface)) return false;
      if (o->iface.empty()) {
        *error = "empty --iface";
        return false;
      }
    } else if (name == "compress") {
      if (!value(&o->compress)) return false;
      // A codec name (on, with that codec) is checked by the ranks, which know the codecs
      // this build has (`ccmpi-codec list`): MPI_Init fails naming it.
      const bool nameLike = !o->compress.empty() && o->compress.size() <= 32 &&
                            o->compress.find_first_not_of(
                                "abcdefghijklmnopqrstuvwxyz0123456789-") == std::string::npos;
      if (!nameLike) {
        *error = "--compress expects off, on, auto or a codec name, got '" + o->compress + "'";
        return false;
      }
    } else if (name == "wdir" || name == "wd") {
      if (!value(&o->wdir)) return false;
    } else if (name == "tag-output" || name == "output-tag") {
      if (!noValue()) return false;
      o->tagOutput = true;
    } else if (name == "l" || name == "prepend-rank" || name == "label") {
      if (!noValue()) return false;
      o->labelOutput = true;
    } else if (name == "ppn" || name == "npernode" || name == "N" || name == "perhost") {
      if (!value(&v)) return false;
      int n = 0;
      auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
      if (ec != std::errc() || p != v.data() + v.size() || n < 1 || n > 1000000) {
        *error = "bad number of ranks per host '" + v + "' for " + arg;
        return false;
      }
      o->ppn = n;
    } else if (name == "timeout") {
      if (!value(&v)) return false;
      int n = 0;
      auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
      if (ec != std::errc() || p != v.data() + v.size() || n < 1) {
        *error = "bad --timeout '" + v + "' (a number of seconds, at least 1)";
        return false;
      }
      o->timeout = n;
    } else if (name == "map-by") {
      if (!value(&o->mapBy)) return false;
      for (char& c : o->mapBy) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
      if (o->mapBy != "slot" && o->mapBy != "node" && o->mapBy != "core" && o->mapBy != "socket") {
        *error = "--map-by " + o->mapBy +
                 ": not supported (ccmpi's mpirun maps by slot, node, core or socket, without "
                 "modifiers such as :PE=n or ppr:)";
        return false;
      }
    } else if (name == "bind-to") {
      if (!value(&o->bindTo)) return false;
      for (char& c : o->bindTo) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
      if (o->bindTo != "none" && o->bindTo != "auto" && o->bindTo != "core" &&
          o->bindTo != "socket") {
        *error = "--bind-to " + o->bindTo +
                 ": not supported (ccmpi's mpirun binds to none, auto, core or socket)";
        return false;
      }
    } else if (name == "report-bindings") {
      if (!noValue()) return false;
      o->reportBindings = true;
    } else if (name == "v" || name == "verbose") {
      if (!noValue()) return false;
      o->verbose = true;
    } else if (name == "allow-run-as-root" || name == "genvall" || name == "envall") {
      // Open MPI's root switch and Hydra's "pass the whole environment": what we do anyway.
      if (!noValue()) return false;
    } else if (name == "oversubscribe") {
      if (!noValue()) return false;
      o->oversubscribe = true;
    } else if (name == "h" || name == "help") {
      o->help = true;
    } else if (name == "V" || name == "version") {
      o->version = true;
    } else if (std::string why = unsupportedOptionMessage(name); !why.empty()) {
      *error = "option '" + arg + "' " + why;
      return false;
    } else {
      *error = "unknown option '" + arg + "' (see mpirun --help)";
      return false;
    }
  }
  o->command.assign(argv.begin() + static_cast<std::ptrdiff_t>(i), argv.end());
  if (o->command.empty() && !o->help && !o->version) {
    *error = "no program given (see mpirun --help)";
    return false;
  }
  if (!o->hostfile.empty() && !o->hostList.empty()) {
    *error = "give either --hostfile or -H, not both";
    return false;
  }
  return true;
}

}  // namespace ccmpi::launcher
