// MPI-4 sessions: MPI_Session_init / _finalize, process sets, MPI_Group_from_session_pset,
// MPI_Comm_create_from_group and session error handlers.
//
// A session is a reference to the library's infrastructure (see runtime.h): the first
// MPI_Session_init (or MPI_Init) brings it up, so sessions work with or without MPI_Init
// and alongside the world model. Two process sets exist: "mpi://WORLD" (every process of
// the job, in world-rank order) and "mpi://SELF" (the calling process). Groups made from
// them are ordinary groups; MPI_Comm_create_from_group agrees on a context id among the
// group's members only (comm/create.cc) and checks that they passed the same string tag.
// Errors on a session go to its error handler (predefined, or made by
// MPI_Session_create_errhandler); errors of MPI_Comm_create_from_group go to the handler
// passed for the new communicator.
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "api/api.h"
#include "base/handles.h"
#include "comm/comm.h"
#include "comm/errhandler.h"
#include "comm/info.h"
#include "comm/internal.h"
#include "runtime/runtime.h"

using namespace ccmpi;

namespace {

struct Session {
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  int threadLevel = MPI_THREAD_SINGLE;
};

HandleTable<Session>& sessions() {
  static HandleTable<Session> t(HandleKind::kSession);
  return t;
}

constexpr const char* kWorldPset = "mpi://WORLD";
constexpr const char* kSelfPset = "mpi://SELF";
constexpr const char* kPsets[] = {kWorldPset, kSelfPset};
constexpr int kNumPsets = 2;

const char* threadLevelName(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE:
      return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED:
      return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED:
      return "MPI_THREAD_SERIALIZED";
    default:
      return "MPI_THREAD_MULTIPLE";
  }
}

// The "thread_level" info value of MPI_Session_init, or -1 if it names no level.
int parseThreadLevel(const std::string& v) {
  for (int level :
       {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED, MPI_THREAD_MULTIPLE})
    if (v == threadLevelName(level)) return level;
  return -1;
}

[[noreturn]] void fatal(int code) {
  const std::string msg = errorString(code);
  if (runtime::active())
    fprintf(stderr, "ccmpi: rank %d: %s\n", runtime::worldRank(), msg.c_str());
  else
    fprintf(stderr, "ccmpi: %s\n", msg.c_str());
  fflush(stderr);
  int cls = errorClassOf(code);
  if (cls <= 0) cls = MPI_ERR_UNKNOWN;
  runtime::abortJob(cls, std::string());
}

// Runs error handler `eh` for `code`; `session` is passed to a user session handler,
// `comm` to a user communicator handler. Returns the code unless the handler ends the job.
int dispatch(MPI_Errhandler eh, MPI_Session session, MPI_Comm comm, int code) {
  comm::Errhandler* e = comm::lookupErrhandler(eh);
  if (!e) fatal(code);
  switch (e->kind) {
    case comm::Errhandler::Kind::kReturn:
      return code;
    case comm::Errhandler::Kind::kUserSession:
      if (e->otherFn) {
        int userCode = code;
        reinterpret_cast<MPI_Session_errhandler_function*>(e->otherFn)(&session, &userCode);
      }
      return code;
    case comm::Errhandler::Kind::kUserComm:
      if (e->commFn) {
        int userCode = code;
        e->commFn(&comm, &userCode);
      }
      return code;
    default:
      fatal(code);
  }
}

std::string vformat(const char* fmt, va_list ap) {
  char buf[1024];
  vsnprintf(buf, sizeof buf, fmt, ap);
  return buf;
}

// Raises an error on a session (or through `eh` when the session is not known yet).
__attribute__((format(printf, 5, 6))) int raiseWith(MPI_Errhandler eh, MPI_Session session,
                                                    const char* func, int errClass, const char* fmt,
                                                    ...) {
  va_list ap;
  va_start(ap, fmt);
  const std::string cause = vformat(fmt, ap);
  va_end(ap);
  return dispatch(eh, session, MPI_COMM_NULL, makeErrorCode(errClass, func, cause));
}

// The session of handle h, or raises MPI_ERR_SESSION (fatal: an invalid session has no
// handler of its own) and returns nullptr.
Session* sessionOrRaise(const char* func, MPI_Session h, int* rc) {
  Session* s = sessions().get(h);
  if (!s || !runtime::active())
    *rc =
        raiseWith(MPI_ERRORS_ARE_FATAL, h, func, MPI_ERR_SESSION, "invalid session handle 0x%x", h);
  return s;
}

bool sessionErrhandlerKind(const comm::Errhandler* e) {
  return e->predefined || e->kind == comm::Errhandler::Kind::kUserSession;
}

// The members of a process set, or false if there is no such set.
bool psetMembers(const char* name, std::vector<int>* members) {
  members->clear();
  if (strcmp(name, kWorldPset) == 0) {
    for (int r = 0; r < runtime::worldSize(); ++r) members->push_back(r);
    return true;
  }
  if (strcmp(name, kSelfPset) == 0) {
    members->push_back(runtime::worldRank());
    return true;
  }
  return false;
}

}  // namespace

extern "C" int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session* session) {
  static constexpr const char* kFunc = "MPI_Session_init";
  comm::initPredefinedErrhandlers();
  const comm::Errhandler* e = comm::lookupErrhandler(errhandler);
  if (!e || !sessionErrhandlerKind(e))
    return raiseWith(MPI_ERRORS_ARE_FATAL, MPI_SESSION_NULL, kFunc, MPI_ERR_ARG,
                     "error handler 0x%x is not a session error handler", errhandler);
  if (!session)
    return raiseWith(errhandler, MPI_SESSION_NULL, kFunc, MPI_ERR_ARG, "session pointer is NULL");
  int required = MPI_THREAD_SINGLE;
  if (info != MPI_INFO_NULL) {
    const comm::Info* in = comm::lookupInfo(info);
    if (!in)
      return raiseWith(errhandler, MPI_SESSION_NULL, kFunc, MPI_ERR_INFO,
                       "invalid info handle 0x%x", info);
    if (const std::string* v = in->find("thread_level")) {
      required = parseThreadLevel(*v);
      if (required < 0)
        return raiseWith(errhandler, MPI_SESSION_NULL, kFunc, MPI_ERR_INFO_VALUE,
                         "thread_level \"%s\" is not an MPI thread level", v->c_str());
    }
  }
  int provided = MPI_THREAD_SINGLE;
  if (int rc = runtime::sessionInit(required, &provided))
    return raiseWith(errhandler, MPI_SESSION_NULL, kFunc, rc, "%s", lastErrorCause().c_str());
  auto s = std::make_unique<Session>();
  s->errhandler = errhandler;
  s->threadLevel = provided;
  comm::retainErrhandler(errhandler);
  *session = sessions().add(std::move(s));
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Session_init)

extern "C" int PMPI_Session_finalize(MPI_Session* session) {
  static constexpr const char* kFunc = "MPI_Session_finalize";
  if (!session)
    return raiseWith(MPI_ERRORS_ARE_FATAL, MPI_SESSION_NULL, kFunc, MPI_ERR_ARG,
                     "session pointer is NULL");
  int rc = MPI_SUCCESS;
  Session* s = sessionOrRaise(kFunc, *session, &rc);
  if (!s) return rc;
  comm::releaseErrhandler(s->errhandler);
  sessions().remove(*session);
  *session = MPI_SESSION_NULL;
  runtime::sessionFinalize();
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Session_finalize)

extern "C" int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info, int* npset_names) {
  static constexpr const char* kFunc = "MPI_Session_get_num_psets";
  int rc = MPI_SUCCESS;
  Session* s = sessionOrRaise(kFunc, session, &rc);
  if (!s) return rc;
  if (!npset_names)
    return raiseWith(s->errhandler, session, kFunc, MPI_ERR_ARG, "npset_names pointer is NULL");
  *npset_names = kNumPsets;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Session_get_num_psets)

extern "C" int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info, int n, int* pset_len,
                                         char* pset_name) {
  static constexpr const char* kFunc = "MPI_Session_get_nth_pset";
  int rc = MPI_SUCCESS;
  Session* s = sessionOrRaise(kFunc, session, &rc);
  if (!s) return rc;
  if (n < 0 || n >= kNumPsets)
    return raiseWith(s->errhandler, session, kFunc, MPI_ERR_ARG,
                     "n = %d is outside [0, %d) (the number of process sets)", n, kNumPsets);
  if (!pset_len)
    return raiseWith(s->errhandler, session, kFunc, MPI_ERR_ARG, "pset_len pointer is NULL");
  const int len = static_cast<int>(strlen(kPsets[n]));
  // pset_len 0: only the length (with the terminating NUL) is returned.
  if (*pset_len > 0) {
    if (!pset_name)
      return raiseWith(s->errhandler, session, kFunc, MPI_ERR_ARG, "pset_name is NULL");
    const int copy = len < *pset_len - 1 ? len : *pset_len - 1;
    memcpy(pset_name, kPsets[n], copy);
    pset_name[copy] = '\0';
  } else if (*pset_len < 0) {
    return raiseWith(s->errhandler, session, kFunc, MPI_ERR_ARG, "pset_len %d is negative",
                     *pset_len);
  }
  *pset_len = len + 1;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Session_get_nth_pset)

extern "C" int PMPI_Session_get_info(MPI_Session session, MPI_Info* info_used) {
  static constexpr const char* kFunc = "MPI_Session_get_info";
  int rc = MPI_SUCCESS;
  Session* s = sessionOrRaise(kFunc, session, &rc);
  if (!s) return rc;
  if (!info_used)
    return raiseWith(s->errhandler, session, kFunc, MPI_ERR_ARG, "info_used pointer is NULL");
  *info_used = comm::newInfo({{"thread_level", threadLevelName(s->threadLevel)}});
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Session_get_info)

namespace {
// The members of process set `pset`, or raises MPI_ERR_ARG on the session.
int psetOrRaise(Session* s, MPI_Session session, const char* func, const char* pset,
                std::vector<int>* members) {
  if (psetMembers(pset, members)) return MPI_SUCCESS;
  return raiseWith(s->errhandler, session, func, MPI_ERR_ARG,
                   "no process set named \"%s\" (known: %s, %s)", pset, kWorldPset, kSelfPset);
}
}  // namespace

extern "C" int PMPI_Session_get_pset_info(MPI_Session session, const char* pset_name,
                                          MPI_Info* info) {
  static constexpr const char* kFunc = "MPI_Session_get_pset_info";
  int rc = MPI_SUCCESS;
  Session* s = sessionOrRaise(kFunc, session, &rc);
  if (!s) return rc;
  if (!pset_name || !info)
    return raiseWith(s->errhandler, session, kFunc, MPI_ERR_ARG, "NULL argument");
  std::vector<int> members;
  if (int err = psetOrRaise(s, session, kFunc, pset_name, &members)) return err;
  *info = comm::newInfo({{"mpi_size", std::to_string(members.size())}});
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Session_get_pset_info)

extern "C" int PMPI_Group_from_session_pset(MPI_Session session, const char* pset_name,
                                            MPI_Group* newgroup) {
  static constexpr const char* kFunc = "MPI_Group_from_session_pset";
  int rc = MPI_SUCCESS;
  Session* s = sessionOrRaise(kFunc, session, &rc);
  if (!s) return rc;
  if (!pset_name || !newgroup)
    return raiseWith(s->errhandler, session, kFunc, MPI_ERR_ARG, "NULL argument");
  std::vector<int> members;
  if (int err = psetOrRaise(s, session, kFunc, pset_name, &members)) return err;
  *newgroup = comm::newGroup(std::move(members));
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Group_from_session_pset)

extern "C" int PMPI_Comm_create_from_group(MPI_Group group, const char* stringtag, MPI_Info info,
                                           MPI_Errhandler errhandler, MPI_Comm* newcomm) {
  CCMPI_API_BEGIN("MPI_Comm_create_from_group");
  const comm::Errhandler* e = comm::lookupErrhandler(errhandler);
  if (!e || !(e->predefined || e->kind == comm::Errhandler::Kind::kUserComm))
    return api::raisef(kFunc, MPI_ERR_ARG, "error handler 0x%x is not a communicator handler",
                       errhandler);
  const comm::Group* g = comm::lookupGroup(group);
  if (!g || group == MPI_GROUP_EMPTY)
    return raiseWith(errhandler, MPI_SESSION_NULL, kFunc, MPI_ERR_GROUP,
                     "invalid or empty group handle 0x%x", group);
  if (!stringtag)
    return raiseWith(errhandler, MPI_SESSION_NULL, kFunc, MPI_ERR_ARG, "stringtag is NULL");
  if (strnlen(stringtag, MPI_MAX_STRINGTAG_LEN) >= MPI_MAX_STRINGTAG_LEN)
    return raiseWith(errhandler, MPI_SESSION_NULL, kFunc, MPI_ERR_ARG,
                     "stringtag is longer than MPI_MAX_STRINGTAG_LEN - 1 = %d characters",
                     MPI_MAX_STRINGTAG_LEN - 1);
  const comm::Info* in = nullptr;
  if (info != MPI_INFO_NULL && !(in = comm::lookupInfo(info)))
    return raiseWith(errhandler, MPI_SESSION_NULL, kFunc, MPI_ERR_INFO, "invalid info handle 0x%x",
                     info);
  if (!newcomm)
    return raiseWith(errhandler, MPI_SESSION_NULL, kFunc, MPI_ERR_ARG, "newcomm pointer is NULL");
  const std::vector<int> members = g->worldRanks;
  if (int rc = comm::createFromGroup(members, stringtag, errhandler, newcomm))
    return raiseWith(errhandler, MPI_SESSION_NULL, kFunc, rc, "%s", lastErrorCause().c_str());
  if (in) {
    if (comm::Comm* c = comm::lookup(*newcomm)) c->hints = in->entries;
  }
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Comm_create_from_group)

extern "C" int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader,
                                                 MPI_Group remote_group, int remote_leader,
                                                 const char* stringtag, MPI_Info info,
                                                 MPI_Errhandler errhandler,
                                                 MPI_Comm* newintercomm) {
  CCMPI_API_BEGIN("MPI_Intercomm_create_from_groups");
  const comm::Errhandler* e = comm::lookupErrhandler(errhandler);
  if (!e || !(e->predefined || e->kind == comm::Errhandler::Kind::kUserComm))
    return api::raisef(kFunc, MPI_ERR_ARG, "error handler 0x%x is not a communicator handler",
                       errhandler);
  const comm::Group* lg = comm::lookupGroup(local_group);
  const comm::Group* rg = comm::lookupGroup(remote_group);
  if (!lg || local_group == MPI_GROUP_EMPTY || !rg || remote_group == MPI_GROUP_EMPTY)
    return raiseWith(errhandler, MPI_SESSION_NULL, kFunc, MPI_ERR_GROUP,
                     "invalid or empty group handle (local 0x%x, remote 0x%x)", local_group,
                     remote_group);
  if (local_leader < 0 || local_leader >= lg->size())
    return raiseWith(errhandler, MPI_SESSION_NULL, kFunc, MPI_ERR_RANK,
                     "local_leader %d is not a rank of local_group (size %d)", local_leader,
                     lg->size());
  if (remote_leader < 0 || remote_leader >= rg->size())
    return raiseWith(errhandler, MPI_SESSION_NULL, kFunc, MPI_ERR_RANK,
                     "remote_leader %d is not a rank of remote_group (size %d)", remote_leader,
                     rg->size());
  if (!stringtag)
    return raiseWith(errhandler, MPI_SESSION_NULL, kFunc, MPI_ERR_ARG, "stringtag is NULL");
  if (strnlen(stringtag, MPI_MAX_STRINGTAG_LEN) >= MPI_MAX_STRINGTAG_LEN)
    return raiseWith(errhandler, MPI_SESSION_NULL, kFunc, MPI_ERR_ARG,
                     "stringtag is longer than MPI_MAX_STRINGTAG_LEN - 1 = %d characters",
                     MPI_MAX_STRINGTAG_LEN - 1);
  const comm::Info* in = nullptr;
  if (info != MPI_INFO_NULL && !(in = comm::lookupInfo(info)))
    return raiseWith(errhandler, MPI_SESSION_NULL, kFunc, MPI_ERR_INFO, "invalid info handle 0x%x",
                     info);
  if (!newintercomm)
    return raiseWith(errhandler, MPI_SESSION_NULL, kFunc, MPI_ERR_ARG,
                     "newintercomm pointer is NULL");
  if (lg->rankOfWorld(runtime::worldRank()) == MPI_UNDEFINED)
    return raiseWith(errhandler, MPI_SESSION_NULL, kFunc, MPI_ERR_GROUP,
                     "the calling process is not a member of local_group");
  const std::vector<int> local = lg->worldRanks, remote = rg->worldRanks;
  if (int rc = comm::createIntercommFromGroups(local, local_leader, remote, remote_leader,
                                               stringtag, errhandler, newintercomm))
    return raiseWith(errhandler, MPI_SESSION_NULL, kFunc, rc, "%s", lastErrorCause().c_str());
  if (in) {
    if (comm::Comm* c = comm::lookup(*newintercomm)) c->hints = in->entries;
  }
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Intercomm_create_from_groups)

extern "C" int PMPI_Session_create_errhandler(MPI_Session_errhandler_function* fn,
                                              MPI_Errhandler* errhandler) {
  static constexpr const char* kFunc = "MPI_Session_create_errhandler";
  comm::initPredefinedErrhandlers();
  if (!fn || !errhandler)
    return raiseWith(MPI_ERRORS_ARE_FATAL, MPI_SESSION_NULL, kFunc, MPI_ERR_ARG,
                     "NULL function or errhandler pointer");
  *errhandler = comm::newSessionErrhandler(fn);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Session_create_errhandler)

extern "C" int PMPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler) {
  static constexpr const char* kFunc = "MPI_Session_set_errhandler";
  int rc = MPI_SUCCESS;
  Session* s = sessionOrRaise(kFunc, session, &rc);
  if (!s) return rc;
  const comm::Errhandler* e = comm::lookupErrhandler(errhandler);
  if (!e || !sessionErrhandlerKind(e))
    return raiseWith(s->errhandler, session, kFunc, MPI_ERR_ARG,
                     "error handler 0x%x was not created for sessions", errhandler);
  comm::retainErrhandler(errhandler);
  comm::releaseErrhandler(s->errhandler);
  s->errhandler = errhandler;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Session_set_errhandler)

extern "C" int PMPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler* errhandler) {
  static constexpr const char* kFunc = "MPI_Session_get_errhandler";
  int rc = MPI_SUCCESS;
  Session* s = sessionOrRaise(kFunc, session, &rc);
  if (!s) return rc;
  if (!errhandler)
    return raiseWith(s->errhandler, session, kFunc, MPI_ERR_ARG, "errhandler pointer is NULL");
  comm::retainErrhandler(s->errhandler);  // the caller frees it with MPI_Errhandler_free
  *errhandler = s->errhandler;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Session_get_errhandler)

extern "C" int PMPI_Session_call_errhandler(MPI_Session session, int errorcode) {
  static constexpr const char* kFunc = "MPI_Session_call_errhandler";
  int rc = MPI_SUCCESS;
  Session* s = sessionOrRaise(kFunc, session, &rc);
  if (!s) return rc;
  dispatch(s->errhandler, session, MPI_COMM_NULL, errorcode);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Session_call_errhandler)

extern "C" MPI_Fint PMPI_Session_c2f(MPI_Session session) {
  return session;
}
CCMPI_MPI_ALIAS(MPI_Session_c2f)

extern "C" MPI_Session PMPI_Session_f2c(MPI_Fint session) {
  return session;
}
CCMPI_MPI_ALIAS(MPI_Session_f2c)
