#pragma once
// Diagnostics to stderr, prefixed with the world rank. Levels: error and notice (always), warn,
// info, debug (CCMPI_VERBOSE=0..3).
namespace ccmpi::log {

void setRank(int rank);
int verbosity();
void error(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void warn(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
// Always printed, like error(), for what the user must hear about but is no error of the
// library (MPI_Finalize waiting long for other ranks).
void notice(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void info(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void debug(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
// Prints the message and terminates the whole job (through the launcher when present).
[[noreturn]] void fatal(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
// The runtime installs how a fatal error ends the job (abort through the launcher);
// without a hook, fatal() calls _exit(1).
using FatalHook = void (*)(int exitCode, const char* message);
void setFatalHook(FatalHook hook);

}  // namespace ccmpi::log

// Invariant check: internal bugs only, never user errors.
#define CCMPI_ASSERT(cond)                                                                    \
  do {                                                                                        \
    if (__builtin_expect(!(cond), 0))                                                         \
      ::ccmpi::log::fatal("internal error: %s:%d: assertion '%s' failed", __FILE__, __LINE__, \
                          #cond);                                                             \
  } while (0)
