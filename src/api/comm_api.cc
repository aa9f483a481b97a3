// Communicator entry points (MPI-4.0 sections 7.4-7.6 and 7.8): accessors, constructors
// (dup, split, split_type, create, create_group), MPI_Comm_free, names and info hints, and
// the intercommunicator calls (MPI_Intercomm_create/merge, remote group; the work is in
// src/comm/intercomm.cc). On an intercommunicator dup/idup, split and create build
// intercommunicators.
#include "api/comm_api.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "api/api.h"
#include "api/errhandler_api.h"
#include "api/request_table.h"
#include "comm/attributes.h"
#include "comm/context_agreement.h"
#include "comm/dynamic.h"
#include "comm/group_ops.h"
#include "comm/info.h"
#include "comm/internal.h"
#include "p2p/p2p.h"
#include "p2p/request.h"

using namespace ccmpi;

namespace ccmpi::api {

int commOrRaise(const char* func, MPI_Comm h, comm::Comm** out) {
  *out = comm::lookup(h);
  if (!*out) {
    if (h == MPI_COMM_NULL) return raisef(func, MPI_ERR_COMM, "communicator is MPI_COMM_NULL");
    return raisef(func, MPI_ERR_COMM, "invalid communicator handle 0x%x", h);
  }
  return MPI_SUCCESS;
}

int intraOrRaise(const char* func, MPI_Comm h, const comm::Comm& c) {
  if (!c.isInter()) return MPI_SUCCESS;
  return raiseCommf(h, func, MPI_ERR_COMM,
                    "communicator is an intercommunicator (%s needs an "
                    "intracommunicator)",
                    func);
}

int raiseCallbackError(MPI_Comm comm, const char* func, int rc, const char* what) {
  const int cls = errorClassOf(rc);
  if (cls > 0 && rc > 0x7f) return dispatchComm(comm, rc);
  return raiseCommf(comm, func, cls > 0 ? cls : MPI_ERR_OTHER, "%s callback returned error %d",
                    what, rc);
}

int freeCommHandle(MPI_Comm h) {
  comm::Comm* c = comm::lookup(h);
  if (!c) return MPI_ERR_COMM;
  if (int rc = comm::deleteAllAttributes(*c, h)) return rc;
  comm::forgetParent(h);
  comm::freeComm(h);
  return MPI_SUCCESS;
}

int finishDup(const char* func, MPI_Comm parentHandle, comm::Comm& parent, MPI_Comm* created,
              bool copyHints) {
  comm::Comm* n = comm::lookup(*created);
  if (!n) return MPI_SUCCESS;
  comm::copyTopology(parent, *n);
  if (copyHints) n->hints = parent.hints;
  if (int rc = comm::copyAttributes(parent, parentHandle, *n)) {
    comm::deleteAllAttributes(*n, *created);
    comm::freeComm(*created);
    *created = MPI_COMM_NULL;
    return raiseCallbackError(parentHandle, func, rc, "attribute copy");
  }
  return MPI_SUCCESS;
}

}  // namespace ccmpi::api

using api::commOrRaise;

extern "C" int PMPI_Comm_size(MPI_Comm comm, int* size) {
  CCMPI_API_BEGIN("MPI_Comm_size");
  comm::Comm* c;
  if (int rc = commOrRaise(kFunc, comm, &c)) return rc;
  if (!size) return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "size pointer is NULL");
  *size = c->size;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Comm_size)

extern "C" int PMPI_Comm_rank(MPI_Comm comm, int* rank) {
  CCMPI_API_BEGIN("MPI_Comm_rank");
  comm::Comm* c;
  if (int rc = commOrRaise(kFunc, comm, &c)) return rc;
  if (!rank) return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "rank pointer is NULL");
  *rank = c->rank;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Comm_rank)

extern "C" int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int* result) {
  CCMPI_API_BEGIN("MPI_Comm_compare");
  comm::Comm *a, *b;
  if (int rc = commOrRaise(kFunc, comm1, &a)) return rc;
  if (int rc = commOrRaise(kFunc, comm2, &b)) return rc;
  if (!result) return api::raiseCommf(comm1, kFunc, MPI_ERR_ARG, "result pointer is NULL");
  if (comm1 == comm2) {
    *result = MPI_IDENT;
  } else if (a->isInter() != b->isInter()) {
    *result = MPI_UNEQUAL;
  } else if (a->isInter()) {
    // Both groups identical in order: congruent; same members: similar.
    const int l = comm::groupCompare(a->worldRanks, b->worldRanks);
    const int r = comm::groupCompare(a->remote->worldRanks, b->remote->worldRanks);
    if (l == MPI_IDENT && r == MPI_IDENT)
      *result = MPI_CONGRUENT;
    else if (l != MPI_UNEQUAL && r != MPI_UNEQUAL)
      *result = MPI_SIMILAR;
    else
      *result = MPI_UNEQUAL;
  } else {
    const int g = comm::groupCompare(a->worldRanks, b->worldRanks);
    *result = g == MPI_IDENT ? MPI_CONGRUENT : g;
  }
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Comm_compare)

extern "C" int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  CCMPI_API_BEGIN("MPI_Comm_dup");
  comm::Comm* c;
  if (int rc = commOrRaise(kFunc, comm, &c)) return rc;
  if (!newcomm) return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "newcomm pointer is NULL");
  if (int rc = c->isInter() ? comm::dupIntercomm(*c, newcomm) : comm::dupComm(*c, newcomm))
    return api::raiseComm(comm, kFunc, rc);
  return api::finishDup(kFunc, comm, *comm::lookup(comm), newcomm, true);
}
CCMPI_MPI_ALIAS(MPI_Comm_dup)

extern "C" int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm) {
  CCMPI_API_BEGIN("MPI_Comm_dup_with_info");
  comm::Comm* c;
  if (int rc = commOrRaise(kFunc, comm, &c)) return rc;
  if (!newcomm) return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "newcomm pointer is NULL");
  comm::Info* in = nullptr;
  if (info != MPI_INFO_NULL && !(in = comm::lookupInfo(info)))
    return api::raiseCommf(comm, kFunc, MPI_ERR_INFO, "invalid info handle 0x%x", info);
  const comm::InfoEntries hints = in ? in->entries : comm::InfoEntries{};
  if (int rc = c->isInter() ? comm::dupIntercomm(*c, newcomm) : comm::dupComm(*c, newcomm))
    return api::raiseComm(comm, kFunc, rc);
  if (int rc = api::finishDup(kFunc, comm, *comm::lookup(comm), newcomm, false)) return rc;
  comm::lookup(*newcomm)->hints = hints;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Comm_dup_with_info)

// MPI_Comm_idup(_with_info): as if MPI_Comm_dup ran at the call (MPI-4.0 section 6.4.2),
// except that it does not wait. The new handle is written to *newcomm at once and the
// attributes are copied (copy callbacks run) at the call, as MPICH and Open MPI do; the
// communicator may be used once the request completes. The context id is agreed by a
// nonblocking agreement (comm/context_agreement.h) progressed by the progress engine, so
// the idup overlaps other communication and other idups.
static int idupCommon(const char* kFunc, MPI_Comm comm, const comm::InfoEntries* hints,
                      MPI_Comm* newcomm, MPI_Request* request) {
  comm::Comm* c;
  if (int rc = commOrRaise(kFunc, comm, &c)) return rc;
  if (!newcomm || !request)
    return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "NULL output argument");
  if (c->isInter()) {
    // The duplicate and its attributes appear when the request completes
    // (comm::idupIntercomm agrees on the context ids over both groups).
    *newcomm = MPI_COMM_NULL;
    p2p::Request* r = nullptr;
    const auto onDone = [comm, kFunc, withHints = hints != nullptr,
                         given = hints ? *hints : comm::InfoEntries{}](MPI_Comm created) {
      MPI_Comm n = created;
      comm::Comm* parent = comm::lookup(comm);
      if (!parent) return;
      api::finishDup(kFunc, comm, *parent, &n, !withHints);
      if (comm::Comm* nc = withHints ? comm::lookup(n) : nullptr) nc->hints = given;
    };
    if (int rc = comm::idupIntercomm(*c, newcomm, onDone, &r))
      return api::raiseComm(comm, kFunc, rc);
    r->commHandle = comm;
    *request = api::requestHandle(r);
    return MPI_SUCCESS;
  }
  p2p::Request* r = p2p::newRequest(p2p::Request::Kind::kOther);
  r->comm = c;  // the parent: pending communication on it until the agreement is over
  ++c->refs;
  r->commHandle = comm;
  r->poll = [](p2p::Request*) { comm::ContextAgreement::advanceAll(); };
  // What the agreement's end does depends on the call: it may end inside it (a single
  // member), and a failed attribute copy leaves it without a user.
  struct State {
    bool returned = false;
    bool abandoned = false;
    int early = -1;  // result of an agreement that ended before the call returned
    MPI_Comm handle = MPI_COMM_NULL;
  };
  auto state = std::make_shared<State>();
  auto finished = [r, state](int rc) {
    if (!state->returned) {
      state->early = rc;
      return;
    }
    if (state->abandoned && rc == MPI_SUCCESS) comm::freeComm(state->handle);
    r->error = rc;
    p2p::completeRequest(r);
  };
  comm::Comm* n = nullptr;
  if (int rc = comm::idupComm(*c, &state->handle, &n, finished)) {
    p2p::releaseRequest(r);
    return api::raiseComm(comm, kFunc, rc);
  }
  n->hints = hints ? *hints : c->hints;
  const int copyRc = comm::copyAttributes(*c, comm, *n);
  if (copyRc) {
    // The others take part in the agreement all the same: it goes on without a user, and
    // its communicator and request are freed when it ends.
    comm::deleteAllAttributes(*n, state->handle);
    state->abandoned = true;
    r->freeOnComplete = true;
  }
  state->returned = true;
  if (state->early >= 0) {
    const int early = state->early;
    state->early = -1;
    finished(early);
  }
  if (copyRc) {
    *newcomm = MPI_COMM_NULL;
    return api::raiseCallbackError(comm, kFunc, copyRc, "attribute copy");
  }
  *newcomm = state->handle;
  *request = api::requestHandle(r);
  return MPI_SUCCESS;
}

extern "C" int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Comm_idup");
  return idupCommon(kFunc, comm, nullptr, newcomm, request);
}
CCMPI_MPI_ALIAS(MPI_Comm_idup)

extern "C" int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm,
                                        MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Comm_idup_with_info");
  comm::Info* in = nullptr;
  if (info != MPI_INFO_NULL && !(in = comm::lookupInfo(info)))
    return api::raiseCommf(comm, kFunc, MPI_ERR_INFO, "invalid info handle 0x%x", info);
  const comm::InfoEntries hints = in ? in->entries : comm::InfoEntries{};
  return idupCommon(kFunc, comm, &hints, newcomm, request);
}
CCMPI_MPI_ALIAS(MPI_Comm_idup_with_info)

extern "C" int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  CCMPI_API_BEGIN("MPI_Comm_split");
  comm::Comm* c;
  if (int rc = commOrRaise(kFunc, comm, &c)) return rc;
  if (!newcomm) return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "newcomm pointer is NULL");
  if (color < 0 && color != MPI_UNDEFINED)
    return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "color %d is negative and not MPI_UNDEFINED",
                           color);
  if (int rc = c->isInter() ? comm::splitIntercomm(*c, color, key, newcomm)
                            : comm::splitComm(*c, color, key, newcomm))
    return api::raiseComm(comm, kFunc, rc);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Comm_split)

extern "C" int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                                    MPI_Comm* newcomm) {
  CCMPI_API_BEGIN("MPI_Comm_split_type");
  comm::Comm* c;
  if (int rc = commOrRaise(kFunc, comm, &c)) return rc;
  if (!newcomm) return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "newcomm pointer is NULL");
  if (c->isInter())
    return api::raiseCommf(comm, kFunc, MPI_ERR_COMM,
                           "splitting an intercommunicator by type is not supported");
  comm::Info* in = nullptr;
  if (info != MPI_INFO_NULL && !(in = comm::lookupInfo(info)))
    return api::raiseCommf(comm, kFunc, MPI_ERR_INFO, "invalid info handle 0x%x", info);
  bool byHost;
  switch (split_type) {
    case MPI_UNDEFINED:
      byHost = false;
      break;
    case MPI_COMM_TYPE_SHARED:
      byHost = true;
      break;
    case MPI_COMM_TYPE_HW_GUIDED: {
      // The only hardware level we know is the host (shared memory).
      const std::string* v = in ? in->find("mpi_hw_resource_type") : nullptr;
      byHost = v && *v == "mpi_shared_memory";
      break;
    }
    case MPI_COMM_TYPE_HW_UNGUIDED:
      byHost = false;  // no hardware level below the host is known
      break;
    default:
      return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "unknown split_type %d", split_type);
  }
  if (int rc = comm::splitShared(*c, !byHost, key, newcomm)) return api::raiseComm(comm, kFunc, rc);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Comm_split_type)

extern "C" int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  CCMPI_API_BEGIN("MPI_Comm_create");
  comm::Comm* c;
  if (int rc = commOrRaise(kFunc, comm, &c)) return rc;
  comm::Group* g = comm::lookupGroup(group);
  if (!g) return api::raiseCommf(comm, kFunc, MPI_ERR_GROUP, "invalid group handle 0x%x", group);
  if (!newcomm) return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "newcomm pointer is NULL");
  const std::vector<int> members = g->worldRanks;
  if (int rc = c->isInter() ? comm::createIntercommSub(*c, members, newcomm)
                            : comm::createComm(*c, members, newcomm))
    return api::raiseComm(comm, kFunc, rc);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Comm_create)

extern "C" int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
  CCMPI_API_BEGIN("MPI_Comm_create_group");
  comm::Comm* c;
  if (int rc = commOrRaise(kFunc, comm, &c)) return rc;
  comm::Group* g = comm::lookupGroup(group);
  if (!g) return api::raiseCommf(comm, kFunc, MPI_ERR_GROUP, "invalid group handle 0x%x", group);
  if (!newcomm) return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "newcomm pointer is NULL");
  if (c->isInter())
    return api::raiseCommf(comm, kFunc, MPI_ERR_COMM,
                           "MPI_Comm_create_group needs an intracommunicator");
  if (tag < 0 || tag > p2p::kTagUb)
    return api::raiseCommf(comm, kFunc, MPI_ERR_TAG, "tag %d is outside [0, %d]", tag, p2p::kTagUb);
  const std::vector<int> members = g->worldRanks;
  if (int rc = comm::createCommGroup(*c, members, newcomm)) return api::raiseComm(comm, kFunc, rc);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Comm_create_group)

extern "C" int PMPI_Comm_free(MPI_Comm* comm) {
  CCMPI_API_BEGIN("MPI_Comm_free");
  if (!comm) return api::raisef(kFunc, MPI_ERR_ARG, "comm pointer is NULL");
  comm::Comm* c;
  if (int rc = commOrRaise(kFunc, *comm, &c)) return rc;
  if (c->predefined)
    return api::raiseCommf(*comm, kFunc, MPI_ERR_COMM, "%s cannot be freed", c->name.c_str());
  if (int rc = api::freeCommHandle(*comm))
    return api::raiseCallbackError(*comm, kFunc, rc, "attribute delete");
  *comm = MPI_COMM_NULL;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Comm_free)

extern "C" int PMPI_Comm_set_name(MPI_Comm comm, const char* comm_name) {
  CCMPI_API_BEGIN("MPI_Comm_set_name");
  comm::Comm* c;
  if (int rc = commOrRaise(kFunc, comm, &c)) return rc;
  if (!comm_name) return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "comm_name is NULL");
  c->name.assign(comm_name, strnlen(comm_name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Comm_set_name)

extern "C" int PMPI_Comm_get_name(MPI_Comm comm, char* comm_name, int* resultlen) {
  CCMPI_API_BEGIN("MPI_Comm_get_name");
  comm::Comm* c;
  if (int rc = commOrRaise(kFunc, comm, &c)) return rc;
  if (!comm_name || !resultlen)
    return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "NULL output argument");
  const size_t n = std::min(c->name.size(), static_cast<size_t>(MPI_MAX_OBJECT_NAME - 1));
  memcpy(comm_name, c->name.data(), n);
  comm_name[n] = '\0';
  *resultlen = static_cast<int>(n);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Comm_get_name)

extern "C" int PMPI_Comm_test_inter(MPI_Comm comm, int* flag) {
  CCMPI_API_BEGIN("MPI_Comm_test_inter");
  comm::Comm* c;
  if (int rc = commOrRaise(kFunc, comm, &c)) return rc;
  if (!flag) return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "flag pointer is NULL");
  *flag = c->isInter() ? 1 : 0;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Comm_test_inter)

extern "C" int PMPI_Comm_remote_size(MPI_Comm comm, int* size) {
  CCMPI_API_BEGIN("MPI_Comm_remote_size");
  comm::Comm* c;
  if (int rc = commOrRaise(kFunc, comm, &c)) return rc;
  if (!c->isInter())
    return api::raiseCommf(comm, kFunc, MPI_ERR_COMM,
                           "communicator is an intracommunicator (no remote group)");
  if (!size) return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "size pointer is NULL");
  *size = c->remote->size();
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Comm_remote_size)

extern "C" int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group* group) {
  CCMPI_API_BEGIN("MPI_Comm_remote_group");
  comm::Comm* c;
  if (int rc = commOrRaise(kFunc, comm, &c)) return rc;
  if (!c->isInter())
    return api::raiseCommf(comm, kFunc, MPI_ERR_COMM,
                           "communicator is an intracommunicator (no remote group)");
  if (!group) return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "group pointer is NULL");
  *group = comm::newGroup(c->remote->worldRanks);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Comm_remote_group)

extern "C" int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                                     int remote_leader, int tag, MPI_Comm* newintercomm) {
  CCMPI_API_BEGIN("MPI_Intercomm_create");
  comm::Comm* c;
  if (int rc = commOrRaise(kFunc, local_comm, &c)) return rc;
  if (c->isInter())
    return api::raiseCommf(local_comm, kFunc, MPI_ERR_COMM,
                           "local_comm is an intercommunicator (it must be an intracommunicator)");
  if (!newintercomm)
    return api::raiseCommf(local_comm, kFunc, MPI_ERR_ARG, "newintercomm pointer is NULL");
  if (local_leader < 0 || local_leader >= c->size)
    return api::raiseCommf(local_comm, kFunc, MPI_ERR_RANK,
                           "local_leader %d is not a rank of local_comm (size %d)", local_leader,
                           c->size);
  if (tag < 0 || tag > p2p::kTagUb)
    return api::raiseCommf(local_comm, kFunc, MPI_ERR_TAG, "tag %d is outside [0, %d]", tag,
                           p2p::kTagUb);
  *newintercomm = MPI_COMM_NULL;
  if (int rc = comm::createIntercomm(*c, local_leader, peer_comm, remote_leader, tag, newintercomm))
    return api::raiseComm(local_comm, kFunc, rc);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Intercomm_create)

extern "C" int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newintracomm) {
  CCMPI_API_BEGIN("MPI_Intercomm_merge");
  comm::Comm* c;
  if (int rc = commOrRaise(kFunc, intercomm, &c)) return rc;
  if (!c->isInter())
    return api::raiseCommf(intercomm, kFunc, MPI_ERR_COMM,
                           "communicator is an intracommunicator (it must be an "
                           "intercommunicator)");
  if (!newintracomm)
    return api::raiseCommf(intercomm, kFunc, MPI_ERR_ARG, "newintracomm pointer is NULL");
  *newintracomm = MPI_COMM_NULL;
  if (int rc = comm::mergeIntercomm(*c, high != 0, newintracomm))
    return api::raiseComm(intercomm, kFunc, rc);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Intercomm_merge)

extern "C" int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info) {
  CCMPI_API_BEGIN("MPI_Comm_set_info");
  comm::Comm* c;
  if (int rc = commOrRaise(kFunc, comm, &c)) return rc;
  comm::Info* in = comm::lookupInfo(info);
  if (!in) return api::raiseCommf(comm, kFunc, MPI_ERR_INFO, "invalid info handle 0x%x", info);
  for (const auto& [k, v] : in->entries) {
    auto it =
        std::find_if(c->hints.begin(), c->hints.end(), [&](const auto& e) { return e.first == k; });
    if (it != c->hints.end())
      it->second = v;
    else
      c->hints.emplace_back(k, v);
  }
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Comm_set_info)

extern "C" int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info* info_used) {
  CCMPI_API_BEGIN("MPI_Comm_get_info");
  comm::Comm* c;
  if (int rc = commOrRaise(kFunc, comm, &c)) return rc;
  if (!info_used) return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "info_used pointer is NULL");
  *info_used = comm::newInfo(c->hints);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Comm_get_info)

// The intercommunicator to the parents of a job MPI_Comm_spawn started (src/comm/dynamic.cc),
// until it is freed or disconnected.
extern "C" int PMPI_Comm_get_parent(MPI_Comm* parent) {
  CCMPI_API_BEGIN("MPI_Comm_get_parent");
  if (!parent) return api::raisef(kFunc, MPI_ERR_ARG, "parent pointer is NULL");
  *parent = comm::parent();
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Comm_get_parent)

// Waits for the communication still pending on comm (requests holding references), then
// frees it like MPI_Comm_free.
extern "C" int PMPI_Comm_disconnect(MPI_Comm* comm) {
  CCMPI_API_BEGIN("MPI_Comm_disconnect");
  if (!comm) return api::raisef(kFunc, MPI_ERR_ARG, "comm pointer is NULL");
  comm::Comm* c;
  if (int rc = commOrRaise(kFunc, *comm, &c)) return rc;
  if (c->predefined)
    return api::raiseCommf(*comm, kFunc, MPI_ERR_COMM, "%s cannot be disconnected",
                           c->name.c_str());
  // Pending communication: references on c other than the handle's that are not idle
  // (inactive persistent requests and completed requests are not pending).
  p2p::waitUntil([c] { return c->refs - c->idleRefs <= 1; });
  if (int rc = api::freeCommHandle(*comm))
    return api::raiseCallbackError(*comm, kFunc, rc, "attribute delete");
  *comm = MPI_COMM_NULL;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Comm_disconnect)
