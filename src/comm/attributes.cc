// Keyvals and cached attributes (see attributes.h). A keyval stays alive after
// MPI_Comm_free_keyval until the last attribute set with it is deleted.
#include "comm/attributes.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <vector>

#include "base/error.h"
#include "p2p/p2p.h"

namespace ccmpi::comm {
namespace {

constexpr int kFirstUserKeyval = 256;

struct AttrState {
  std::map<int, Keyval> keyvals;
  int nextKeyval = kFirstUserKeyval;
  uint64_t nextSeq = 1;
  // Values of the predefined attributes (Attr_get returns pointers to these).
  int tagUb = p2p::kTagUb;
  int host = MPI_PROC_NULL;
  int io = MPI_ANY_SOURCE;
  int wtimeIsGlobal = 0;
  int universeSize = 1;
  int appnum = 0;
  int lastUsedCode = 0;
};

AttrState& st() {
  static AttrState s;
  return s;
}

Keyval* findKeyval(int keyval) {
  auto it = st().keyvals.find(keyval);
  return it == st().keyvals.end() ? nullptr : &it->second;
}

void dropKeyvalRef(int keyval) {
  auto it = st().keyvals.find(keyval);
  if (it != st().keyvals.end() && --it->second.refs <= 0) st().keyvals.erase(it);
}

// Runs the delete callback of one attribute (not removing it).
int runDelete(MPI_Comm h, int keyval, void* value) {
  Keyval* kv = findKeyval(keyval);
  if (!kv || !kv->deleteFn) return MPI_SUCCESS;
  return kv->deleteFn(h, keyval, value, kv->extraState);
}

}  // namespace

bool isPredefinedKeyval(int keyval) {
  return keyval == MPI_TAG_UB || keyval == MPI_HOST || keyval == MPI_IO ||
         keyval == MPI_WTIME_IS_GLOBAL || keyval == MPI_UNIVERSE_SIZE || keyval == MPI_APPNUM ||
         keyval == MPI_LASTUSEDCODE;
}

int createKeyval(MPI_Comm_copy_attr_function* copyFn, MPI_Comm_delete_attr_function* deleteFn,
                 void* extraState, int* keyval) {
  Keyval kv;
  kv.copyFn = copyFn;
  kv.deleteFn = deleteFn;
  kv.extraState = extraState;
  const int id = st().nextKeyval++;
  st().keyvals.emplace(id, kv);
  *keyval = id;
  return MPI_SUCCESS;
}

int freeKeyval(int* keyval) {
  if (isPredefinedKeyval(*keyval))
    return setErrorCause(MPI_ERR_KEYVAL, "keyval %d is predefined and cannot be freed", *keyval);
  Keyval* kv = findKeyval(*keyval);
  if (!kv || kv->freed)
    return setErrorCause(MPI_ERR_KEYVAL, "keyval %d is not a valid communicator keyval", *keyval);
  kv->freed = true;
  dropKeyvalRef(*keyval);
  *keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

int setAttribute(Comm& c, MPI_Comm h, int keyval, void* value) {
  if (isPredefinedKeyval(keyval))
    return setErrorCause(MPI_ERR_KEYVAL, "keyval %d is predefined and read-only", keyval);
  Keyval* kv = findKeyval(keyval);
  if (!kv || kv->freed)
    return setErrorCause(MPI_ERR_KEYVAL, "keyval %d is not a valid communicator keyval", keyval);
  auto it = c.attributes.find(keyval);
  if (it != c.attributes.end()) {
    if (int rc = runDelete(h, keyval, it->second.value)) return rc;
    it->second.value = value;
    it->second.seq = st().nextSeq++;
    return MPI_SUCCESS;
  }
  c.attributes[keyval] = Attribute{value, st().nextSeq++};
  ++kv->refs;
  return MPI_SUCCESS;
}

int getAttribute(const Comm& c, int keyval, void** value, int* flag) {
  AttrState& s = st();
  int* predefined = nullptr;
  if (keyval == MPI_TAG_UB)
    predefined = &s.tagUb;
  else if (keyval == MPI_HOST)
    predefined = &s.host;
  else if (keyval == MPI_IO)
    predefined = &s.io;
  else if (keyval == MPI_WTIME_IS_GLOBAL)
    predefined = &s.wtimeIsGlobal;
  else if (keyval == MPI_UNIVERSE_SIZE)
    predefined = &s.universeSize;
  else if (keyval == MPI_APPNUM)
    predefined = &s.appnum;
  else if (keyval == MPI_LASTUSEDCODE) {
    s.lastUsedCode = lastUsedCode();
    predefined = &s.lastUsedCode;
  }
  if (predefined) {
    *value = predefined;
    *flag = 1;
    return MPI_SUCCESS;
  }
  Keyval* kv = findKeyval(keyval);
  if (!kv)
    return setErrorCause(MPI_ERR_KEYVAL, "keyval %d is not a valid communicator keyval", keyval);
  auto it = c.attributes.find(keyval);
  if (it == c.attributes.end()) {
    *flag = 0;
    return MPI_SUCCESS;
  }
  *value = it->second.value;
  *flag = 1;
  return MPI_SUCCESS;
}

int deleteAttribute(Comm& c, MPI_Comm h, int keyval) {
  if (isPredefinedKeyval(keyval))
    return setErrorCause(MPI_ERR_KEYVAL, "keyval %d is predefined and read-only", keyval);
  Keyval* kv = findKeyval(keyval);
  if (!kv)
    return setErrorCause(MPI_ERR_KEYVAL, "keyval %d is not a valid communicator keyval", keyval);
  auto it = c.attributes.find(keyval);
  if (it == c.attributes.end())
    return setErrorCause(MPI_ERR_KEYVAL, "no attribute is set for keyval %d", keyval);
  if (int rc = runDelete(h, keyval, it->second.value)) return rc;
  c.attributes.erase(it);
  dropKeyvalRef(keyval);
  return MPI_SUCCESS;
}

int copyAttributes(const Comm& from, MPI_Comm fromHandle, Comm& to) {
  // Copy in set order so the new communicator's delete order matches the old one's.
  std::vector<std::pair<uint64_t, int>> order;
  for (const auto& [keyval, attr] : from.attributes) order.emplace_back(attr.seq, keyval);
  std::sort(order.begin(), order.end());
  for (const auto& [seq, keyval] : order) {
    Keyval* kv = findKeyval(keyval);
    if (!kv || !kv->copyFn) continue;
    void* out = nullptr;
    int flag = 0;
    void* in = from.attributes.at(keyval).value;
    if (int rc = kv->copyFn(fromHandle, keyval, kv->extraState, in, &out, &flag)) return rc;
    kv = findKeyval(keyval);  // the callback may have created keyvals
    if (flag && kv) {
      to.attributes[keyval] = Attribute{out, st().nextSeq++};
      ++kv->refs;
    }
  }
  return MPI_SUCCESS;
}

int deleteAllAttributes(Comm& c, MPI_Comm h) {
  std::vector<std::pair<uint64_t, int>> order;
  for (const auto& [keyval, attr] : c.attributes) order.emplace_back(attr.seq, keyval);
  std::sort(order.rbegin(), order.rend());
  for (const auto& [seq, keyval] : order) {
    auto it = c.attributes.find(keyval);
    if (it == c.attributes.end()) continue;  // a callback deleted it
    if (int rc = runDelete(h, keyval, it->second.value)) return rc;
    c.attributes.erase(keyval);
    dropKeyvalRef(keyval);
  }
  return MPI_SUCCESS;
}

void initPredefinedAttributes(int worldSize) {
  AttrState& s = st();
  s = AttrState{};
  // MPI_UNIVERSE_SIZE: how many processes the program may usefully have (MPI_Comm_spawn
  // can start more, on an oversubscribed host): CCMPI_UNIVERSE_SIZE, which mpirun sets to
  // its slots (-H/--hostfile, else this host's CPUs), at least the world's size.
  s.universeSize = worldSize;
  if (const char* u = getenv("CCMPI_UNIVERSE_SIZE")) s.universeSize = std::max(worldSize, atoi(u));
  // MPI_APPNUM: the command of MPI_Comm_spawn_multiple this process runs.
  if (const char* a = getenv("CCMPI_APPNUM")) s.appnum = atoi(a);
}

void finalizeAttributes() {
  st().keyvals.clear();
}

size_t liveKeyvals() {
  return st().keyvals.size();
}

}  // namespace ccmpi::comm
