// PMIx client (see pmix_client.h): a thin layer over libpmix's blocking calls.
#include "bootstrap/pmix_client.h"

#ifdef CCMPI_HAVE_PMIX
#include <pmix.h>
#include <poll.h>

#include <atomic>
#include <cstring>
#endif

#if defined(CCMPI_HAVE_PMIX) && defined(__SANITIZE_ADDRESS__)
// libpmix 4.2 keeps a few strings from PMIx_Init (pmix_rte_init) and PMIx_Get
// (pmix_bfrops_base_value_load) past PMIx_Finalize, and after an init that failed: its
// leaks, not ours. LeakSanitizer reads this hook in every program linked with the library.
extern "C" const char* __lsan_default_suppressions() {
  return "leak:libpmix.so\n";
}
#endif

namespace ccmpi::bootstrap {

#ifdef CCMPI_HAVE_PMIX
namespace {

pmix_proc_t gMe;  // this process, after PMIx_Init

std::string status(const char* call, pmix_status_t rc) {
  return std::string(call) + ": " + PMIx_Error_string(rc);
}

// A job-level (wildcard) or own value as an unsigned integer; false if absent.
bool getNumber(const pmix_proc_t* proc, const char* key, long* out) {
  pmix_value_t* val = nullptr;
  if (PMIx_Get(proc, key, nullptr, 0, &val) != PMIX_SUCCESS || !val) return false;
  bool ok = true;
  switch (val->type) {
    case PMIX_UINT32:
      *out = val->data.uint32;
      break;
    case PMIX_UINT16:
      *out = val->data.uint16;
      break;
    case PMIX_INT:
      *out = val->data.integer;
      break;
    case PMIX_UINT:
      *out = val->data.uint;
      break;
    case PMIX_UINT64:
      *out = static_cast<long>(val->data.uint64);
      break;
    case PMIX_SIZE:
      *out = static_cast<long>(val->data.size);
      break;
    default:
      ok = false;
  }
  PMIX_VALUE_RELEASE(val);
  return ok;
}

}  // namespace

PmixClient::~PmixClient() {
  if (initialized_) PMIx_Finalize(nullptr, 0);
}

std::string PmixClient::init() {
  pmix_status_t rc = PMIx_Init(&gMe, nullptr, 0);
  if (rc != PMIX_SUCCESS) return status("PMIx_Init", rc);
  initialized_ = true;
  rank_ = static_cast<int>(gMe.rank);
  nspace_ = gMe.nspace;
  pmix_proc_t job;
  PMIX_LOAD_PROCID(&job, gMe.nspace, PMIX_RANK_WILDCARD);
  long v = 0;
  if (!getNumber(&job, PMIX_JOB_SIZE, &v) || v < 1) return "PMIx_Get(PMIX_JOB_SIZE) failed";
  size_ = static_cast<int>(v);
  universeSize_ = getNumber(&job, PMIX_UNIV_SIZE, &v) && v >= size_ ? static_cast<int>(v) : size_;
  localSize_ = getNumber(&job, PMIX_LOCAL_SIZE, &v) && v >= 1 ? static_cast<int>(v) : -1;
  appnum_ = getNumber(&gMe, PMIX_APPNUM, &v) ? static_cast<int>(v) : 0;
  if (rank_ < 0 || rank_ >= size_)
    return "inconsistent rank " + std::to_string(rank_) + " / size " + std::to_string(size_);
  return "";
}

std::string PmixClient::put(const std::string& key, const std::string& value) {
  pmix_value_t v;
  PMIX_VALUE_CONSTRUCT(&v);
  v.type = PMIX_BYTE_OBJECT;
  v.data.bo.bytes = const_cast<char*>(value.data());
  v.data.bo.size = value.size();
  pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key.c_str(), &v);  // copies the bytes
  return rc == PMIX_SUCCESS ? "" : status("PMIx_Put", rc);
}

std::string PmixClient::get(int owner, const std::string& key, std::string* value, bool* found) {
  pmix_proc_t proc;
  PMIX_LOAD_PROCID(&proc, gMe.nspace, static_cast<pmix_rank_t>(owner));
  pmix_info_t info;
  bool optional = true;
  PMIX_INFO_CONSTRUCT(&info);
  PMIX_INFO_LOAD(&info, PMIX_OPTIONAL, &optional, PMIX_BOOL);
  pmix_value_t* val = nullptr;
  pmix_status_t rc = PMIx_Get(&proc, key.c_str(), &info, 1, &val);
  PMIX_INFO_DESTRUCT(&info);
  *found = false;
  if (rc == PMIX_ERR_NOT_FOUND || rc == PMIX_ERR_PROC_ENTRY_NOT_FOUND) return "";
  if (rc != PMIX_SUCCESS || !val) return status("PMIx_Get", rc);
  std::string error;
  if (val->type == PMIX_BYTE_OBJECT)
    value->assign(val->data.bo.bytes ? val->data.bo.bytes : "", val->data.bo.size);
  else if (val->type == PMIX_STRING)
    value->assign(val->data.string ? val->data.string : "");
  else
    error = "PMIx_Get(" + key + "): unexpected value type " + std::to_string(val->type);
  PMIX_VALUE_RELEASE(val);
  *found = error.empty();
  return error;
}

std::string PmixClient::fence(const std::function<void()>& whileWaiting) {
  pmix_status_t rc = PMIx_Commit();
  if (rc != PMIX_SUCCESS) return status("PMIx_Commit", rc);
  pmix_proc_t job;
  PMIX_LOAD_PROCID(&job, gMe.nspace, PMIX_RANK_WILDCARD);
  pmix_info_t info;
  bool collect = true;
  PMIX_INFO_CONSTRUCT(&info);
  PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
  if (!whileWaiting) {
    rc = PMIx_Fence(&job, 1, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    return rc == PMIX_SUCCESS ? "" : status("PMIx_Fence", rc);
  }
  // The non-blocking fence completes on PMIx's progress thread.
  struct Done {
    std::atomic<bool> done{false};
    std::atomic<int> status{PMIX_SUCCESS};
  } done;
  auto callback = [](pmix_status_t st, void* arg) {
    auto* d = static_cast<Done*>(arg);
    d->status = st;
    d->done = true;
  };
  rc = PMIx_Fence_nb(&job, 1, &info, 1, callback, &done);
  if (rc != PMIX_SUCCESS) {
    PMIX_INFO_DESTRUCT(&info);
    return status("PMIx_Fence_nb", rc);
  }
  while (!done.done) {
    whileWaiting();
    ::poll(nullptr, 0, 1);
  }
  PMIX_INFO_DESTRUCT(&info);
  return done.status == PMIX_SUCCESS ? "" : status("PMIx_Fence_nb", done.status);
}

std::string PmixClient::finalize() {
  if (!initialized_) return "";
  initialized_ = false;
  pmix_status_t rc = PMIx_Finalize(nullptr, 0);
  return rc == PMIX_SUCCESS ? "" : status("PMIx_Finalize", rc);
}

void PmixClient::abort(int code, const std::string& message) {
  if (initialized_) PMIx_Abort(code, message.c_str(), nullptr, 0);
}

#else  // built without libpmix

namespace {
const char kNoPmix[] = "this ccmpi was built without PMIx support (libpmix-dev)";
}

PmixClient::~PmixClient() = default;
std::string PmixClient::init() {
  return kNoPmix;
}
std::string PmixClient::put(const std::string&, const std::string&) {
  return kNoPmix;
}
std::string PmixClient::get(int, const std::string&, std::string*, bool* found) {
  *found = false;
  return kNoPmix;
}
std::string PmixClient::fence(const std::function<void()>&) {
  return kNoPmix;
}
std::string PmixClient::finalize() {
  return "";
}
void PmixClient::abort(int, const std::string&) {}

#endif

}  // namespace ccmpi::bootstrap
