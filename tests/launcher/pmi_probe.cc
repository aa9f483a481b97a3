// Test program for the launcher tests: uses ccmpi::bootstrap::Pmi directly (no MPI) and
// does one thing per mode, printing results to stdout (line-buffered, one line each):
//
//   pmi_probe exchange [rounds]   put/barrier/get all-to-all, checks every value; prints
//                                 "exchange ok rank=R size=N ..." (exit 3 on mismatch)
//   pmi_probe info                prints "info rank=R size=N local=L/LS node=.. ..."
//   pmi_probe env NAME...         prints "env R NAME=value" (or NAME unset)
//   pmi_probe exit CODE RANK      rank RANK exits CODE after a barrier, without finalize;
//                                 the others print "pid R PID" and sleep
//   pmi_probe exit-finalized CODE RANK   all finalize, then rank RANK exits CODE
//   pmi_probe segv RANK           rank RANK raises SIGSEGV after a barrier; others sleep
//   pmi_probe abort CODE RANK     rank RANK calls Pmi::abort(CODE); others sleep
//   pmi_probe nofinalize RANK     rank RANK exits 0 without finalize; others sleep
//   pmi_probe sleep               every rank prints "pid R PID" and sleeps
//   pmi_probe spawn-sleep         like sleep, but each rank also forks a child that
//                                 prints "child R PID" and sleeps
//   pmi_probe lines K             K stdout and K stderr lines per rank, written in pieces
//   pmi_probe stdin               rank 0 echoes stdin lines as "stdin: LINE"
//   pmi_probe noinit              prints "noinit R" from PMI_RANK and exits 0, no PMI
//   pmi_probe badkey              checks that invalid keys/values are refused
//
// "pid" lines come after a barrier, so when the test sees all of them every rank is
// running; sleeping ranks sleep 60 s, far beyond any test's expectations.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include <mpi.h>

#include "bootstrap/pmi.h"

using ccmpi::bootstrap::Pmi;

namespace {

Pmi pmi;

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "pmi_probe rank %d: %s (%s)\n", pmi.rank(), what.c_str(),
               pmi.lastError().c_str());
  std::exit(3);
}

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) die(std::string(what) + " failed with class " + std::to_string(rc));
}

void sleepForever() {
  for (int i = 0; i < 600; ++i) usleep(100000);
  std::exit(0);
}

void printPid() {
  std::printf("pid %d %d\n", pmi.rank(), static_cast<int>(getpid()));
  std::fflush(stdout);
}

std::string valueFor(int rank, int round) {
  // Spaces, '=', '%', a newline and non-ASCII bytes exercise the value escaping.
  return "v r=" + std::to_string(rank) + " round%" + std::to_string(round) + "\n\xc3\xbc" +
         std::string(static_cast<std::size_t>(rank % 7) * 10, 'x');
}

int exchange(int rounds) {
  for (int round = 0; round < rounds; ++round) {
    std::string key = "k" + std::to_string(round) + "-" + std::to_string(pmi.rank());
    check(pmi.put(key, valueFor(pmi.rank(), round)), "put");
    check(pmi.barrier(), "barrier");
    for (int r = 0; r < pmi.size(); ++r) {
      std::string value;
      check(pmi.get("k" + std::to_string(round) + "-" + std::to_string(r), &value), "get");
      if (value != valueFor(r, round)) die("wrong value for rank " + std::to_string(r));
    }
  }
  std::string value;
  if (pmi.get("no-such-key", &value) != MPI_ERR_INFO_NOKEY) die("missing key not reported");
  std::printf("exchange ok rank=%d size=%d appnum=%d universe=%d kvs=%s singleton=%d\n", pmi.rank(),
              pmi.size(), pmi.appnum(), pmi.universeSize(), pmi.kvsName().c_str(),
              pmi.singleton() ? 1 : 0);
  std::fflush(stdout);
  check(pmi.finalize(), "finalize");
  return 0;
}

const char* env(const char* name) {
  const char* v = getenv(name);
  return v ? v : "(unset)";
}

}  // namespace

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  std::string mode = argc > 1 ? argv[1] : "exchange";
  auto arg = [&](int i) { return argc > i ? std::atoi(argv[i]) : 0; };

  if (mode == "noinit") {
    std::printf("noinit %s\n", env("PMI_RANK"));
    return 0;
  }
  check(pmi.init(), "init");
  const int me = pmi.rank();

  if (mode == "exchange") return exchange(argc > 2 ? arg(2) : 2);
  if (mode == "info") {
    std::printf("info rank=%d size=%d local=%s/%s node=%s/%s pmi_rank=%s secret=%s job=%s\n", me,
                pmi.size(), env("CCMPI_LOCAL_RANK"), env("CCMPI_LOCAL_SIZE"), env("CCMPI_NODE_ID"),
                env("CCMPI_NUM_NODES"), env("PMI_RANK"), env("CCMPI_JOB_SECRET"),
                env("CCMPI_JOB_ID"));
    check(pmi.finalize(), "finalize");
    return 0;
  }
  if (mode == "env") {
    for (int i = 2; i < argc; ++i) std::printf("env %d %s=%s\n", me, argv[i], env(argv[i]));
    check(pmi.finalize(), "finalize");
    return 0;
  }
  if (mode == "badkey") {
    int failures = 0;
    auto expect = [&](int rc, int want, const char* what) {
      if (rc == want) return;
      std::fprintf(stderr, "badkey: %s: got %d, want %d\n", what, rc, want);
      ++failures;
    };
    expect(pmi.put("has space", "v"), MPI_ERR_ARG, "key with a space");
    expect(pmi.put("has=equals", "v"), MPI_ERR_ARG, "key with '='");
    expect(pmi.put("", "v"), MPI_ERR_ARG, "empty key");
    expect(pmi.put(std::string(64, 'k'), "v"), MPI_ERR_ARG, "64-byte key");
    expect(pmi.put(std::string(63, 'k'), "v"), MPI_SUCCESS, "63-byte key");
    expect(pmi.put("big", std::string(5000, 'v')), MPI_ERR_ARG, "5000-byte value");
    expect(pmi.put("spaces", std::string(300, ' ')), MPI_SUCCESS, "300 spaces (900 escaped)");
    // The limit is on the value (vallen_max - 1 = 1023 bytes); escaped, it is sent in parts.
    expect(pmi.put("spaces2", std::string(1023, ' ')), MPI_SUCCESS, "1023 spaces (3069 escaped)");
    expect(pmi.put("spaces3", std::string(1024, ' ')), MPI_ERR_ARG, "1024 spaces");
    check(pmi.barrier(), "barrier");
    std::string value;
    expect(pmi.get("spaces", &value), MPI_SUCCESS, "get spaces");
    expect(value == std::string(300, ' ') ? 0 : 1, 0, "value of spaces");
    expect(pmi.get("spaces2", &value), MPI_SUCCESS, "get spaces2");
    expect(value == std::string(1023, ' ') ? 0 : 1, 0, "value of spaces2");
    std::printf("badkey rank=%d failures=%d\n", me, failures);
    check(pmi.finalize(), "finalize");
    return failures == 0 ? 0 : 4;
  }
  if (mode == "exit" || mode == "segv" || mode == "abort" || mode == "nofinalize" ||
      mode == "sleep") {
    const int code = arg(2);
    const int victim = mode == "segv" || mode == "nofinalize" ? arg(2) : arg(3);
    check(pmi.barrier(), "barrier");
    printPid();
    check(pmi.barrier(), "barrier");
    if (mode == "sleep" || me != victim) sleepForever();
    usleep(100000);  // let the others reach their sleep
    if (mode == "exit") std::exit(code);
    if (mode == "nofinalize") std::exit(0);
    if (mode == "abort") pmi.abort(code, "pmi_probe: rank " + std::to_string(me) + " aborts");
    signal(SIGSEGV, SIG_DFL);
    raise(SIGSEGV);
    return 99;
  }
  if (mode == "spawn-sleep") {
    pid_t child = fork();
    if (child == 0) {
      std::printf("child %d %d\n", me, static_cast<int>(getpid()));
      std::fflush(stdout);
      for (int i = 0; i < 600; ++i) usleep(100000);
      _exit(0);
    }
    check(pmi.barrier(), "barrier");
    printPid();
    sleepForever();
  }
  if (mode == "exit-finalized") {
    check(pmi.barrier(), "barrier");
    check(pmi.finalize(), "finalize");
    return me == arg(3) ? arg(2) : 0;
  }
  if (mode == "lines") {
    const int k = arg(2);
    for (int i = 0; i < k; ++i) {
      // Each line in three writes, to show that partial lines are reassembled.
      std::string a = "line " + std::to_string(i), b = " of rank ", c = std::to_string(me) + "\n";
      for (const std::string* part : {&a, &b, &c}) {
        ssize_t n = write(1, part->data(), part->size());
        (void)n;
      }
      std::string e = "err " + std::to_string(i) + " of rank " + std::to_string(me) + "\n";
      ssize_t n = write(2, e.data(), e.size());
      (void)n;
    }
    check(pmi.finalize(), "finalize");
    return 0;
  }
  if (mode == "stdin") {
    if (me == 0) {
      std::string line;
      while (std::getline(std::cin, line)) std::printf("stdin: %s\n", line.c_str());
    }
    check(pmi.barrier(), "barrier");
    check(pmi.finalize(), "finalize");
    return 0;
  }
  std::fprintf(stderr, "pmi_probe: unknown mode '%s'\n", mode.c_str());
  return 2;
}
