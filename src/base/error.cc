// Error codes: class | (slot << 7), with the message of each recent code kept in a
// ring so MPI_Error_string can return the exact text that was raised.
#include "base/error.h"

#include <array>
#include <cstdarg>
#include <cstdio>
#include <map>

namespace ccmpi {
namespace {

constexpr int kClassBits = 7;
constexpr int kClassMask = (1 << kClassBits) - 1;
constexpr int kRingSlots = 1024;
constexpr int kFirstUserClass = MPI_ERR_LASTCODE + 1;  // MPI_Add_error_class
static_assert(MPI_ERR_ERRHANDLER < MPI_ERR_LASTCODE);

struct ClassInfo {
  const char* name;
  const char* text;
};

const ClassInfo kClasses[] = {
    {"MPI_SUCCESS", "no error"},
    {"MPI_ERR_BUFFER", "invalid buffer pointer"},
    {"MPI_ERR_COUNT", "invalid count argument"},
    {"MPI_ERR_TYPE", "invalid datatype"},
    {"MPI_ERR_TAG", "invalid tag"},
    {"MPI_ERR_COMM", "invalid communicator"},
    {"MPI_ERR_RANK", "invalid rank"},
    {"MPI_ERR_REQUEST", "invalid request"},
    {"MPI_ERR_ROOT", "invalid root"},
    {"MPI_ERR_GROUP", "invalid group"},
    {"MPI_ERR_OP", "invalid operation"},
    {"MPI_ERR_TOPOLOGY", "invalid topology"},
    {"MPI_ERR_DIMS", "invalid dimension argument"},
    {"MPI_ERR_ARG", "invalid argument"},
    {"MPI_ERR_UNKNOWN", "unknown error"},
    {"MPI_ERR_TRUNCATE", "message truncated"},
    {"MPI_ERR_OTHER", "other error"},
    {"MPI_ERR_INTERN", "internal error"},
    {"MPI_ERR_PENDING", "pending request"},
    {"MPI_ERR_IN_STATUS", "error code is in status"},
    {"MPI_ERR_ACCESS", "permission denied"},
    {"MPI_ERR_AMODE", "invalid access mode"},
    {"MPI_ERR_ASSERT", "invalid assertion"},
    {"MPI_ERR_BAD_FILE", "invalid file name"},
    {"MPI_ERR_BASE", "invalid base"},
    {"MPI_ERR_CONVERSION", "data conversion error"},
    {"MPI_ERR_DISP", "invalid displacement"},
    {"MPI_ERR_DUP_DATAREP", "data representation already defined"},
    {"MPI_ERR_FILE_EXISTS", "file exists"},
    {"MPI_ERR_FILE_IN_USE", "file in use"},
    {"MPI_ERR_FILE", "invalid file handle"},
    {"MPI_ERR_INFO_KEY", "invalid info key"},
    {"MPI_ERR_INFO_NOKEY", "info key not defined"},
    {"MPI_ERR_INFO_VALUE", "invalid info value"},
    {"MPI_ERR_INFO", "invalid info object"},
    {"MPI_ERR_IO", "I/O error"},
    {"MPI_ERR_KEYVAL", "invalid keyval"},
    {"MPI_ERR_LOCKTYPE", "invalid lock type"},
    {"MPI_ERR_NAME", "invalid service name"},
    {"MPI_ERR_NO_MEM", "out of memory"},
    {"MPI_ERR_NOT_SAME", "arguments not identical across processes"},
    {"MPI_ERR_NO_SPACE", "not enough space"},
    {"MPI_ERR_NO_SUCH_FILE", "no such file"},
    {"MPI_ERR_PORT", "invalid port name"},
    {"MPI_ERR_QUOTA", "quota exceeded"},
    {"MPI_ERR_READ_ONLY", "read-only file or file system"},
    {"MPI_ERR_RMA_CONFLICT", "conflicting RMA accesses"},
    {"MPI_ERR_RMA_SYNC", "wrong RMA synchronization"},
    {"MPI_ERR_SERVICE", "invalid service"},
    {"MPI_ERR_SIZE", "invalid size"},
    {"MPI_ERR_SPAWN", "spawn error"},
    {"MPI_ERR_UNSUPPORTED_DATAREP", "unsupported data representation"},
    {"MPI_ERR_UNSUPPORTED_OPERATION", "operation not supported"},
    {"MPI_ERR_WIN", "invalid window"},
    {"MPI_ERR_RMA_RANGE", "RMA target out of range"},
    {"MPI_ERR_RMA_ATTACH", "RMA attach failed"},
    {"MPI_ERR_RMA_SHARED", "RMA shared memory error"},
    {"MPI_ERR_RMA_FLAVOR", "wrong window flavor"},
    {"MPI_ERR_PROC_ABORTED", "peer process aborted"},
    {"MPI_ERR_VALUE_TOO_LARGE", "value too large"},
    {"MPI_ERR_SESSION", "invalid session"},
    {"MPI_ERR_ERRHANDLER", "invalid error handler"},
};
static_assert(sizeof(kClasses) / sizeof(kClasses[0]) == MPI_ERR_ERRHANDLER + 1);

struct State {
  std::string cause;
  std::array<std::string, kRingSlots> ring;
  std::array<int, kRingSlots> ringCode{};
  int next = 0;
  int userClasses = 0;                  // classes added by MPI_Add_error_class
  std::map<int, std::string> userText;  // code or class -> MPI_Add_error_string text
  int userCodes = 0;
  int lastUsed = MPI_ERR_LASTCODE;  // MPI_LASTUSEDCODE: never below MPI_ERR_LASTCODE
};

State& state() {
  static State s;
  return s;
}

}  // namespace

int setErrorCause(int errClass, const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  state().cause = buf;
  return errClass;
}

const std::string& lastErrorCause() {
  return state().cause;
}
void clearErrorCause() {
  state().cause.clear();
}

const char* errorClassName(int errClass) {
  if (errClass >= 0 && errClass <= MPI_ERR_ERRHANDLER) return kClasses[errClass].name;
  if (errClass >= kFirstUserClass && errClass < kFirstUserClass + state().userClasses)
    return "user-defined error class";
  return "MPI_ERR_UNKNOWN";
}

const char* errorClassDescription(int errClass) {
  if (errClass >= 0 && errClass <= MPI_ERR_ERRHANDLER) return kClasses[errClass].text;
  return "user-defined error";
}

int makeErrorCode(int errClass, const char* func, const std::string& cause) {
  State& s = state();
  if (errClass <= 0 || errClass > kClassMask) errClass = MPI_ERR_UNKNOWN;
  const std::string& why = cause.empty() ? s.cause : cause;
  std::string msg = std::string(func ? func : "MPI") + ": " + errorClassName(errClass) + ": " +
                    (why.empty() ? errorClassDescription(errClass) : why);
  const int slot = s.next;
  s.next = (s.next + 1) % kRingSlots;
  const int code = errClass | ((slot + 1) << kClassBits);
  s.ring[slot] = std::move(msg);
  s.ringCode[slot] = code;
  s.cause.clear();
  return code;
}

int errorClassOf(int code) {
  if (code == MPI_SUCCESS) return MPI_SUCCESS;
  if (code < 0) return -1;
  const int cls = code & kClassMask;
  if (cls > MPI_ERR_ERRHANDLER &&
      (cls < kFirstUserClass || cls >= kFirstUserClass + state().userClasses))
    return -1;
  if (code > kClassMask) {
    const int slot = (code >> kClassBits) - 1;
    if (slot >= kRingSlots + 4096) return -1;  // beyond ring and user codes
  }
  return cls;
}

std::string errorString(int code) {
  State& s = state();
  auto user = s.userText.find(code);
  if (user != s.userText.end()) return user->second;
  if (code == MPI_SUCCESS) return "MPI_SUCCESS: no error";
  const int cls = code & kClassMask;
  if (code > kClassMask) {
    const int slot = (code >> kClassBits) - 1;
    if (slot >= 0 && slot < kRingSlots && s.ringCode[slot] == code) return s.ring[slot];
    // A code from MPI_Add_error_code: its string is empty until MPI_Add_error_string.
    if (slot >= kRingSlots) return "";
  } else if (cls >= kFirstUserClass) {
    return "";  // a class from MPI_Add_error_class without a string yet
  }
  return std::string(errorClassName(cls)) + ": " + errorClassDescription(cls);
}

int addErrorClass(int* errClass) {
  State& s = state();
  if (kFirstUserClass + s.userClasses > kClassMask) return MPI_ERR_OTHER;
  *errClass = kFirstUserClass + s.userClasses++;
  if (*errClass > s.lastUsed) s.lastUsed = *errClass;
  return MPI_SUCCESS;
}

int addErrorCode(int errClass, int* code) {
  State& s = state();
  if (errClass < 0 || errClass > kClassMask) return MPI_ERR_ARG;
  // User codes live above the ring's slot range.
  *code = errClass | ((kRingSlots + 1 + s.userCodes++) << kClassBits);
  if (*code > s.lastUsed) s.lastUsed = *code;
  return MPI_SUCCESS;
}

int addErrorString(int code, const char* text) {
  state().userText[code] = text ? text : "";
  return MPI_SUCCESS;
}

int lastUsedCode() {
  return state().lastUsed;
}

}  // namespace ccmpi
