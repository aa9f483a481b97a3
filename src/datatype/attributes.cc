// Attributes cached on datatypes (MPI_Type_create_keyval ...), and MPI_Type_free, which
// runs their delete callbacks. A keyval stays alive after MPI_Type_free_keyval until the
// last attribute set with it is deleted, so callbacks can still run.
#include <map>

#include "base/error.h"
#include "datatype/internal.h"

namespace ccmpi::datatype {
namespace {

// Type keyvals live in their own range so that a communicator keyval passed to a
// datatype function is reported as invalid.
constexpr int kFirstKeyval = 0x10000;

struct Keyval {
  MPI_Type_copy_attr_function* copyFn = nullptr;
  MPI_Type_delete_attr_function* deleteFn = nullptr;
  void* extra = nullptr;
  int refs = 1;  // the user's keyval + every attribute set with it
  bool freed = false;
};

struct KeyvalState {
  std::map<int, Keyval> keyvals;
  int next = kFirstKeyval;
};

KeyvalState& ks() {
  static KeyvalState s;
  return s;
}

Keyval* findKeyval(int keyval) {
  auto it = ks().keyvals.find(keyval);
  return it == ks().keyvals.end() ? nullptr : &it->second;
}

// A keyval the user may still use.
int userKeyval(int keyval, Keyval** out) {
  Keyval* kv = findKeyval(keyval);
  if (!kv || kv->freed)
    return setErrorCause(MPI_ERR_KEYVAL, "%d is not a valid datatype keyval", keyval);
  *out = kv;
  return MPI_SUCCESS;
}

void dropRef(int keyval) {
  auto it = ks().keyvals.find(keyval);
  if (it != ks().keyvals.end() && --it->second.refs <= 0) ks().keyvals.erase(it);
}

int typeOf(MPI_Datatype h, Datatype** out) {
  Datatype* t = lookup(h);
  if (!t) return setErrorCause(MPI_ERR_TYPE, "0x%x is not a valid datatype", h);
  *out = t;
  return MPI_SUCCESS;
}

int runDelete(MPI_Datatype h, int keyval, void* value) {
  Keyval* kv = findKeyval(keyval);
  if (!kv || !kv->deleteFn) return MPI_SUCCESS;
  const int rc = kv->deleteFn(h, keyval, value, kv->extra);
  if (rc != MPI_SUCCESS)
    return setErrorCause(rc, "the delete callback of keyval %d returned %d", keyval, rc);
  return MPI_SUCCESS;
}

}  // namespace

int createKeyval(MPI_Type_copy_attr_function* copyFn, MPI_Type_delete_attr_function* deleteFn,
                 void* extraState, int* keyval) {
  const int k = ks().next++;
  Keyval& kv = ks().keyvals[k];
  kv.copyFn = copyFn;
  kv.deleteFn = deleteFn;
  kv.extra = extraState;
  *keyval = k;
  return MPI_SUCCESS;
}

int freeKeyval(int* keyval) {
  Keyval* kv = nullptr;
  if (int rc = userKeyval(*keyval, &kv)) return rc;
  kv->freed = true;
  dropRef(*keyval);
  *keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

int setAttr(MPI_Datatype h, int keyval, void* value) {
  Datatype* t = nullptr;
  Keyval* kv = nullptr;
  if (int rc = typeOf(h, &t)) return rc;
  if (int rc = userKeyval(keyval, &kv)) return rc;
  auto it = t->attrs_.find(keyval);
  if (it != t->attrs_.end()) {
    if (int rc = runDelete(h, keyval, it->second)) return rc;
    it->second = value;
  } else {
    t->attrs_[keyval] = value;
    ++kv->refs;
  }
  return MPI_SUCCESS;
}

int getAttr(MPI_Datatype h, int keyval, void** value, int* flag) {
  Datatype* t = nullptr;
  Keyval* kv = nullptr;
  if (int rc = typeOf(h, &t)) return rc;
  if (int rc = userKeyval(keyval, &kv)) return rc;
  auto it = t->attrs_.find(keyval);
  *flag = it != t->attrs_.end();
  if (*flag) *value = it->second;
  return MPI_SUCCESS;
}

int deleteAttr(MPI_Datatype h, int keyval) {
  Datatype* t = nullptr;
  Keyval* kv = nullptr;
  if (int rc = typeOf(h, &t)) return rc;
  if (int rc = userKeyval(keyval, &kv)) return rc;
  auto it = t->attrs_.find(keyval);
  if (it == t->attrs_.end())
    return setErrorCause(MPI_ERR_KEYVAL, "datatype has no attribute for keyval %d", keyval);
  if (int rc = runDelete(h, keyval, it->second)) return rc;
  t->attrs_.erase(it);
  dropRef(keyval);
  return MPI_SUCCESS;
}

int copyAttributes(MPI_Datatype from, MPI_Datatype to) {
  Datatype* src = nullptr;
  Datatype* dst = nullptr;
  if (int rc = typeOf(from, &src)) return rc;
  if (int rc = typeOf(to, &dst)) return rc;
  for (const auto& [keyval, value] : src->attrs_) {
    Keyval* kv = findKeyval(keyval);
    if (!kv || !kv->copyFn) continue;
    void* out = nullptr;
    int flag = 0;
    const int rc = kv->copyFn(from, keyval, kv->extra, value, &out, &flag);
    if (rc != MPI_SUCCESS)
      return setErrorCause(rc, "the copy callback of keyval %d returned %d", keyval, rc);
    if (flag) {
      if (dst->attrs_.emplace(keyval, out).second) ++kv->refs;
    }
  }
  return MPI_SUCCESS;
}

size_t liveKeyvals() {
  return ks().keyvals.size();
}

int free(MPI_Datatype* h) {
  Datatype* t = lookup(*h);
  if (!t) return setErrorCause(MPI_ERR_TYPE, "0x%x is not a valid datatype", *h);
  if (t->predefined_)
    return setErrorCause(MPI_ERR_TYPE, "cannot free the predefined datatype %s", t->name_.c_str());
  if (t->fixed_)
    return setErrorCause(MPI_ERR_TYPE,
                         "a datatype returned by MPI_Type_create_f90_* must not be freed");
  // Delete callbacks run now; a failing one leaves the type (and the rest) in place.
  while (!t->attrs_.empty()) {
    auto it = t->attrs_.begin();
    if (int rc = runDelete(*h, it->first, it->second)) return rc;
    const int keyval = it->first;
    t->attrs_.erase(it);
    dropRef(keyval);
  }
  t->freed_ = true;
  release(*h);
  *h = MPI_DATATYPE_NULL;
  return MPI_SUCCESS;
}

}  // namespace ccmpi::datatype
