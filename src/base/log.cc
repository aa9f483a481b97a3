// stderr diagnostics with a rank prefix.
#include "base/log.h"

#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>

namespace ccmpi::log {
namespace {

int gRank = -1;
int gVerbosity = -1;
FatalHook gFatalHook = nullptr;

void emit(const char* level, const char* fmt, va_list ap) {
  char msg[2048];
  vsnprintf(msg, sizeof msg, fmt, ap);
  char line[2200];
  int n;
  if (gRank >= 0)
    n = snprintf(line, sizeof line, "ccmpi[%d]: %s%s\n", gRank, level, msg);
  else
    n = snprintf(line, sizeof line, "ccmpi: %s%s\n", level, msg);
  if (n > static_cast<int>(sizeof line) - 1) n = sizeof line - 1;
  // One write so lines of different ranks do not interleave.
  ssize_t ignored = ::write(2, line, n);
  (void)ignored;
}

}  // namespace

void setRank(int rank) {
  gRank = rank;
}

int verbosity() {
  if (gVerbosity < 0) {
    const char* v = getenv("CCMPI_VERBOSE");
    gVerbosity = v ? atoi(v) : 0;
  }
  return gVerbosity;
}

void setFatalHook(FatalHook hook) {
  gFatalHook = hook;
}

#define CCMPI_LOG_FN(fn, lvl, prefix) \
  void fn(const char* fmt, ...) {     \
    if (verbosity() < (lvl)) return;  \
    va_list ap;                       \
    va_start(ap, fmt);                \
    emit(prefix, fmt, ap);            \
    va_end(ap);                       \
  }
CCMPI_LOG_FN(error, 0, "error: ")
CCMPI_LOG_FN(warn, 1, "warning: ")
CCMPI_LOG_FN(notice, 0, "")
CCMPI_LOG_FN(info, 2, "")
CCMPI_LOG_FN(debug, 3, "debug: ")
#undef CCMPI_LOG_FN

void fatal(const char* fmt, ...) {
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  error("%s", msg);
  if (gFatalHook) gFatalHook(1, msg);
  _exit(1);
}

}  // namespace ccmpi::log
