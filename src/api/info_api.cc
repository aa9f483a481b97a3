// MPI_Info entry points (MPI-3.1 chapter 9, plus MPI-4.0 MPI_Info_get_string). As MPI-4.0
// allows, they work at any time, even before MPI_Init and after MPI_Finalize.
#include <algorithm>
#include <cstring>
#include <string>

#include "api/api.h"
#include "comm/info.h"

using namespace ccmpi;

namespace {

int infoOrRaise(const char* func, MPI_Info h, comm::Info** out) {
  *out = comm::lookupInfo(h);
  if (!*out) return api::raisef(func, MPI_ERR_INFO, "invalid info handle 0x%x", h);
  return MPI_SUCCESS;
}

int checkKey(const char* func, const char* key) {
  if (!key) return api::raisef(func, MPI_ERR_INFO_KEY, "key is NULL");
  const size_t n = strlen(key);
  if (n == 0) return api::raisef(func, MPI_ERR_INFO_KEY, "key is empty");
  if (n > MPI_MAX_INFO_KEY)
    return api::raisef(func, MPI_ERR_INFO_KEY,
                       "key of %zu characters is longer than "
                       "MPI_MAX_INFO_KEY (%d)",
                       n, MPI_MAX_INFO_KEY);
  return MPI_SUCCESS;
}

// Copies at most maxChars characters of s and a terminating NUL.
void copyOut(const std::string& s, char* out, size_t maxChars) {
  const size_t n = std::min(s.size(), maxChars);
  memcpy(out, s.data(), n);
  out[n] = '\0';
}

}  // namespace

extern "C" int PMPI_Info_create(MPI_Info* info) {
  CCMPI_API_BEGIN_ANYTIME("MPI_Info_create");
  if (!info) return api::raisef(kFunc, MPI_ERR_ARG, "info pointer is NULL");
  *info = comm::newInfo();
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Info_create)

extern "C" int PMPI_Info_set(MPI_Info info, const char* key, const char* value) {
  CCMPI_API_BEGIN_ANYTIME("MPI_Info_set");
  comm::Info* in;
  if (int rc = infoOrRaise(kFunc, info, &in)) return rc;
  if (comm::isPredefinedInfo(info))
    return api::raisef(kFunc, MPI_ERR_INFO, "MPI_INFO_ENV cannot be modified");
  if (int rc = checkKey(kFunc, key)) return rc;
  if (!value) return api::raisef(kFunc, MPI_ERR_INFO_VALUE, "value is NULL");
  const size_t n = strlen(value);
  if (n > MPI_MAX_INFO_VAL)
    return api::raisef(kFunc, MPI_ERR_INFO_VALUE,
                       "value of %zu characters is longer than "
                       "MPI_MAX_INFO_VAL (%d)",
                       n, MPI_MAX_INFO_VAL);
  in->set(key, value);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Info_set)

extern "C" int PMPI_Info_delete(MPI_Info info, const char* key) {
  CCMPI_API_BEGIN_ANYTIME("MPI_Info_delete");
  comm::Info* in;
  if (int rc = infoOrRaise(kFunc, info, &in)) return rc;
  if (comm::isPredefinedInfo(info))
    return api::raisef(kFunc, MPI_ERR_INFO, "MPI_INFO_ENV cannot be modified");
  if (int rc = checkKey(kFunc, key)) return rc;
  if (!in->erase(key)) return api::raisef(kFunc, MPI_ERR_INFO_NOKEY, "key \"%s\" is not set", key);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Info_delete)

extern "C" int PMPI_Info_get(MPI_Info info, const char* key, int valuelen, char* value, int* flag) {
  CCMPI_API_BEGIN_ANYTIME("MPI_Info_get");
  comm::Info* in;
  if (int rc = infoOrRaise(kFunc, info, &in)) return rc;
  if (int rc = checkKey(kFunc, key)) return rc;
  if (valuelen < 0) return api::raisef(kFunc, MPI_ERR_ARG, "valuelen %d is negative", valuelen);
  if (!flag) return api::raisef(kFunc, MPI_ERR_ARG, "flag pointer is NULL");
  const std::string* v = in->find(key);
  *flag = v != nullptr;
  if (v) {
    if (!value) return api::raisef(kFunc, MPI_ERR_ARG, "value buffer is NULL");
    copyOut(*v, value, static_cast<size_t>(valuelen));
  }
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Info_get)

extern "C" int PMPI_Info_get_valuelen(MPI_Info info, const char* key, int* valuelen, int* flag) {
  CCMPI_API_BEGIN_ANYTIME("MPI_Info_get_valuelen");
  comm::Info* in;
  if (int rc = infoOrRaise(kFunc, info, &in)) return rc;
  if (int rc = checkKey(kFunc, key)) return rc;
  if (!valuelen || !flag) return api::raisef(kFunc, MPI_ERR_ARG, "NULL output argument");
  const std::string* v = in->find(key);
  *flag = v != nullptr;
  if (v) *valuelen = static_cast<int>(v->size());
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Info_get_valuelen)

extern "C" int PMPI_Info_get_string(MPI_Info info, const char* key, int* buflen, char* value,
                                    int* flag) {
  CCMPI_API_BEGIN_ANYTIME("MPI_Info_get_string");
  comm::Info* in;
  if (int rc = infoOrRaise(kFunc, info, &in)) return rc;
  if (int rc = checkKey(kFunc, key)) return rc;
  if (!buflen || !flag) return api::raisef(kFunc, MPI_ERR_ARG, "NULL output argument");
  if (*buflen < 0) return api::raisef(kFunc, MPI_ERR_ARG, "*buflen %d is negative", *buflen);
  const std::string* v = in->find(key);
  *flag = v != nullptr;
  if (!v) return MPI_SUCCESS;
  if (*buflen > 0) {
    if (!value) return api::raisef(kFunc, MPI_ERR_ARG, "value buffer is NULL");
    copyOut(*v, value, static_cast<size_t>(*buflen) - 1);
  }
  *buflen = static_cast<int>(v->size()) + 1;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Info_get_string)

extern "C" int PMPI_Info_get_nkeys(MPI_Info info, int* nkeys) {
  CCMPI_API_BEGIN_ANYTIME("MPI_Info_get_nkeys");
  comm::Info* in;
  if (int rc = infoOrRaise(kFunc, info, &in)) return rc;
  if (!nkeys) return api::raisef(kFunc, MPI_ERR_ARG, "nkeys pointer is NULL");
  *nkeys = static_cast<int>(in->entries.size());
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Info_get_nkeys)

extern "C" int PMPI_Info_get_nthkey(MPI_Info info, int n, char* key) {
  CCMPI_API_BEGIN_ANYTIME("MPI_Info_get_nthkey");
  comm::Info* in;
  if (int rc = infoOrRaise(kFunc, info, &in)) return rc;
  if (!key) return api::raisef(kFunc, MPI_ERR_ARG, "key buffer is NULL");
  if (n < 0 || n >= static_cast<int>(in->entries.size()))
    return api::raisef(kFunc, MPI_ERR_ARG, "n = %d outside [0, %zu)", n, in->entries.size());
  copyOut(in->entries[n].first, key, MPI_MAX_INFO_KEY);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Info_get_nthkey)

extern "C" int PMPI_Info_dup(MPI_Info info, MPI_Info* newinfo) {
  CCMPI_API_BEGIN_ANYTIME("MPI_Info_dup");
  comm::Info* in;
  if (int rc = infoOrRaise(kFunc, info, &in)) return rc;
  if (!newinfo) return api::raisef(kFunc, MPI_ERR_ARG, "newinfo pointer is NULL");
  *newinfo = comm::newInfo(in->entries);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Info_dup)

extern "C" int PMPI_Info_free(MPI_Info* info) {
  CCMPI_API_BEGIN_ANYTIME("MPI_Info_free");
  if (!info) return api::raisef(kFunc, MPI_ERR_ARG, "info pointer is NULL");
  comm::Info* in;
  if (int rc = infoOrRaise(kFunc, *info, &in)) return rc;
  if (comm::isPredefinedInfo(*info))
    return api::raisef(kFunc, MPI_ERR_INFO, "MPI_INFO_ENV cannot be freed");
  comm::freeInfo(*info);
  *info = MPI_INFO_NULL;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Info_free)
