// MPI-IO entry points (MPI_File_*): file handles, hints, views, the three kinds of
// positioning (explicit offsets, individual and shared file pointers), blocking,
// nonblocking and split collective data access, and file error handlers.
//
// Errors on a file go to its error handler; errors of MPI_File_open / MPI_File_delete and
// on an invalid handle go to MPI_FILE_NULL's, which is MPI_ERRORS_RETURN by default (the
// standard's rule). Nonblocking and split collective accesses run to completion inside the
// starting call: the request (or the _end call) only reports the result. The internals
// are in file_impl.h (see there), file_access.cc and file_datarep.cc (user-defined data
// representations, MPI_Register_datarep).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "api/api.h"
#include "api/file_impl.h"
#include "api/request_table.h"
#include "base/handles.h"
#include "coll/coll.h"
#include "comm/comm.h"
#include "comm/errhandler.h"
#include "comm/info.h"
#include "comm/internal.h"
#include "p2p/request.h"
#include "runtime/runtime.h"

using namespace ccmpi;
using io::File;

namespace ccmpi::io {

int64_t hintInt(const File& f, const char* key, int64_t dflt) {
  for (const auto& [k, v] : f.hints)
    if (k == key) {
      char* end = nullptr;
      const long long x = strtoll(v.c_str(), &end, 10);
      return end != v.c_str() && x > 0 ? x : dflt;
    }
  return dflt;
}

std::string hintStr(const File& f, const char* key, const char* dflt) {
  for (const auto& [k, v] : f.hints)
    if (k == key) return v;
  return dflt;
}

}  // namespace ccmpi::io

namespace {

HandleTable<File>& files() {
  static HandleTable<File> t(HandleKind::kFile);
  return t;
}

// MPI_FILE_NULL's error handler: the default of files opened later.
MPI_Errhandler gNullErrhandler = MPI_ERRORS_RETURN;

[[noreturn]] void fatal(int code) {
  const std::string msg = errorString(code);
  fprintf(stderr, "ccmpi: rank %d: %s\n", runtime::worldRank(), msg.c_str());
  fflush(stderr);
  int cls = errorClassOf(code);
  if (cls <= 0) cls = MPI_ERR_UNKNOWN;
  runtime::abortJob(cls, std::string());
}

int dispatch(MPI_Errhandler eh, MPI_File fh, int code) {
  comm::Errhandler* e = comm::lookupErrhandler(eh);
  if (!e) fatal(code);
  switch (e->kind) {
    case comm::Errhandler::Kind::kReturn:
      return code;
    case comm::Errhandler::Kind::kUserFile:
      if (e->otherFn) {
        int userCode = code;
        reinterpret_cast<MPI_File_errhandler_function*>(e->otherFn)(&fh, &userCode);
        return userCode;  // as MPICH: the handler may clear the error
      }
      return code;
    default:
      fatal(code);
  }
}

// Raises on file f (MPI_FILE_NULL's handler when f is null).
__attribute__((format(printf, 4, 5))) int raiseFile(const File* f, const char* func, int errClass,
                                                    const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  const int code = makeErrorCode(errClass, func, buf);
  return f ? dispatch(f->errhandler, f->handle, code)
           : dispatch(gNullErrhandler, MPI_FILE_NULL, code);
}

// Raises an error class returned by a lower layer with its recorded cause.
int raiseRc(const File* f, const char* func, int rc) {
  return raiseFile(f, func, rc, "%s", lastErrorCause().c_str());
}

// An invalid file handle (raised on MPI_FILE_NULL's error handler).
int raiseBadFile(const char* func, MPI_File fh) {
  return raiseFile(nullptr, func, MPI_ERR_FILE, "invalid file handle 0x%x", fh);
}

#define FILE_OR_RAISE(fh, f) \
  CCMPI_HANDLE_OR_RAISE(File, f, files().get(fh), raiseBadFile(kFunc, fh))

void setStatus(MPI_Status* st, int64_t bytes) {
  if (st == MPI_STATUS_IGNORE || st == nullptr) return;
  st->MPI_SOURCE = MPI_ANY_SOURCE;
  st->MPI_TAG = MPI_ANY_TAG;
  st->ccmpi_cancelled = 0;
  st->ccmpi_count = bytes;
}

// Hints a file takes from an info object (ROMIO's names); others are ignored.
constexpr const char* kHintKeys[] = {"cb_buffer_size",
                                     "cb_nodes",
                                     "romio_cb_read",
                                     "romio_cb_write",
                                     "ind_rd_buffer_size",
                                     "ind_wr_buffer_size",
                                     "romio_ds_read",
                                     "romio_ds_write",
                                     "romio_no_indep_rw",
                                     "striping_factor",
                                     "striping_unit",
                                     "cb_config_list",
                                     "access_style",
                                     "collective_buffering",
                                     "file_perm",
                                     "io_node_list",
                                     "nb_proc",
                                     "num_io_nodes",
                                     "start_iodevice",
                                     "romio_lustre_start_iodevice"};

void takeHints(File& f, MPI_Info info) {
  const comm::Info* in = comm::lookupInfo(info);
  if (!in) return;
  for (const auto& [k, v] : in->entries)
    for (const char* key : kHintKeys)
      if (k == key) {
        bool found = false;
        for (auto& [hk, hv] : f.hints)
          if (hk == k) {
            hv = v;
            found = true;
          }
        if (!found) f.hints.push_back({k, v});
      }
}

void setDefaultHint(File& f, const char* key, const std::string& v) {
  for (const auto& [k, _] : f.hints)
    if (k == key) return;
  f.hints.push_back({key, v});
}

// Strips a ROMIO file-system prefix ("ufs:", "nfs:" ...) from a file name.
std::string stripPrefix(const char* name) {
  static constexpr const char* kPrefixes[] = {
      "ufs:", "nfs:", "lustre:", "gpfs:", "pvfs2:", "panfs:", "xfs:", "testfs:", "daos:"};
  for (const char* p : kPrefixes)
    if (strncmp(name, p, strlen(p)) == 0) return name + strlen(p);
  return name;
}

int checkAmode(int amode, std::string* why) {
  constexpr int kAll = MPI_MODE_CREATE | MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR |
                       MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN | MPI_MODE_EXCL |
                       MPI_MODE_APPEND | MPI_MODE_SEQUENTIAL;
  const int rw = (amode & MPI_MODE_RDONLY ? 1 : 0) + (amode & MPI_MODE_WRONLY ? 1 : 0) +
                 (amode & MPI_MODE_RDWR ? 1 : 0);
  if (amode & ~kAll)
    *why = "unknown bits in the access mode";
  else if (rw != 1)
    *why = "exactly one of MPI_MODE_RDONLY, MPI_MODE_WRONLY and MPI_MODE_RDWR is required";
  else if ((amode & MPI_MODE_RDONLY) && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
    *why = "MPI_MODE_RDONLY with MPI_MODE_CREATE or MPI_MODE_EXCL";
  else if ((amode & MPI_MODE_RDWR) && (amode & MPI_MODE_SEQUENTIAL))
    *why = "MPI_MODE_RDWR with MPI_MODE_SEQUENTIAL";
  else
    return MPI_SUCCESS;
  return MPI_ERR_AMODE;
}

// ---------- the shared file pointer (side file) ----------

class SideLock {
 public:
  explicit SideLock(int fd) : fd_(fd) {
    struct flock lk = {};
    lk.l_type = F_WRLCK;
    lk.l_whence = SEEK_SET;
    lk.l_len = 8;
    while (fcntl(fd_, F_SETLKW, &lk) < 0 && errno == EINTR) {
    }
  }
  ~SideLock() {
    struct flock lk = {};
    lk.l_type = F_UNLCK;
    lk.l_whence = SEEK_SET;
    lk.l_len = 8;
    fcntl(fd_, F_SETLK, &lk);
  }
  SideLock(const SideLock&) = delete;
  SideLock& operator=(const SideLock&) = delete;

 private:
  int fd_;
};

int sharedRead(int fd, int64_t* v) {
  *v = 0;
  if (pread(fd, v, 8, 0) < 0)
    return setErrorCause(MPI_ERR_IO, "shared file pointer: %s", strerror(errno));
  return MPI_SUCCESS;
}

int sharedWrite(int fd, int64_t v) {
  if (pwrite(fd, &v, 8, 0) != 8)
    return setErrorCause(MPI_ERR_IO, "shared file pointer: %s", strerror(errno));
  return MPI_SUCCESS;
}

// Atomically adds `add` to the shared pointer; *old is its value before.
int sharedFetchAdd(File& f, int64_t add, int64_t* old) {
  if (f.shFd < 0)
    return setErrorCause(MPI_ERR_IO, "the shared file pointer file could not be created");
  SideLock lock(f.shFd);
  if (int rc = sharedRead(f.shFd, old)) return rc;
  return add ? sharedWrite(f.shFd, *old + add) : MPI_SUCCESS;
}

int sharedSet(File& f, int64_t v) {
  if (f.shFd < 0)
    return setErrorCause(MPI_ERR_IO, "the shared file pointer file could not be created");
  SideLock lock(f.shFd);
  return sharedWrite(f.shFd, v);
}

// Rank 0 creates the side file (beside the data file, else in the temporary directory)
// and tells the others its name.
void openSharedPointer(File& f, int64_t initial) {
  char name[4096] = {};
  if (f.c->rank == 0) {
    static std::atomic<int> serial{0};
    std::string dir = ".", base = f.path;
    const size_t slash = f.path.rfind('/');
    if (slash != std::string::npos) {
      dir = f.path.substr(0, slash);
      if (dir.empty()) dir = "/";
      base = f.path.substr(slash + 1);
    }
    const char* tmp = getenv("TMPDIR");
    for (const std::string& d : {dir, std::string(tmp && *tmp ? tmp : "/tmp")}) {
      snprintf(name, sizeof name, "%s/.%s.ccmpi-shfp.%d.%d", d.c_str(), base.c_str(),
               static_cast<int>(getpid()), serial++);
      const int fd = open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
      if (fd >= 0) {
        f.shFd = fd;
        sharedWrite(fd, initial);
        break;
      }
      name[0] = '\0';
    }
  }
  coll::bcast(name, sizeof name, MPI_CHAR, 0, *f.c);
  f.shPath = name;
  if (f.c->rank != 0 && name[0]) f.shFd = open(name, O_RDWR);
}

// ---------- views ----------

void releaseViewTypes(File& f) {
  for (MPI_Datatype* t : {&f.etype, &f.filetype}) {
    datatype::Datatype* d = datatype::lookup(*t);
    if (d && !d->predefined()) datatype::free(t);
    *t = MPI_BYTE;
  }
}

// Our own committed reference to a view type (the user may free theirs).
int holdType(MPI_Datatype t, MPI_Datatype* out) {
  datatype::Datatype* d = datatype::lookup(t);
  if (d->predefined()) {
    *out = t;
    return MPI_SUCCESS;
  }
  if (int rc = datatype::dup(t, out)) return rc;
  return datatype::commit(*out);
}

// The standard requires etypes and filetypes whose displacements are non-negative and
// monotonically nondecreasing, without overlaps unless the file is read-only; ROMIO
// reports others as MPI_ERR_IO.
int checkViewType(MPI_Datatype t, const char* what, bool readOnly) {
  MPI_Datatype held;
  if (int rc = holdType(t, &held)) return rc;
  datatype::Datatype* d = datatype::lookup(held);
  int rc = MPI_SUCCESS;
  if (d->size() > 0) {
    const std::vector<datatype::Block> blocks = d->blocks(size_t{1} << 26);
    int64_t start = 0, end = 0;
    for (const datatype::Block& b : blocks) {
      if (b.disp < start || (b.disp < end && !readOnly)) {
        rc = setErrorCause(MPI_ERR_IO,
                           "the %s has a negative, decreasing or overlapping displacement", what);
        break;
      }
      start = b.disp;
      end = std::max(end, b.disp + b.len);
    }
  }
  if (!d->predefined()) datatype::free(&held);
  return rc;
}

// A view; with a user-defined representation `rep`, the file layout of etype and filetype
// comes from the representation's extents (fileLayoutType).
int installView(File& f, int64_t disp, MPI_Datatype etype, MPI_Datatype filetype,
                const std::string& datarep, const io::Datarep* rep = nullptr) {
  MPI_Datatype le = MPI_DATATYPE_NULL, lft = MPI_DATATYPE_NULL;
  if (rep) {
    if (int rc = io::fileLayoutType(*rep, etype, &le)) return rc;
    if (int rc = io::fileLayoutType(*rep, filetype, &lft)) {
      datatype::free(&le);
      return rc;
    }
  }
  struct FreeLayout {
    MPI_Datatype* a;
    MPI_Datatype* b;
    ~FreeLayout() {
      for (MPI_Datatype* t : {a, b})
        if (*t != MPI_DATATYPE_NULL) datatype::free(t);
    }
  } freeLayout{&le, &lft};
  MPI_Datatype e, ft;
  if (int rc = holdType(etype, &e)) return rc;
  if (int rc = holdType(filetype, &ft)) return rc;
  datatype::Datatype* fd = datatype::lookup(rep ? lft : ft);
  std::vector<datatype::Block> blocks =
      fd->size() > 0 ? fd->blocks(size_t{1} << 26) : std::vector<datatype::Block>{};
  if (fd->size() > 0 && blocks.empty())
    return setErrorCause(MPI_ERR_TYPE, "the filetype has too many blocks");
  releaseViewTypes(f);
  f.etype = e;
  f.filetype = ft;
  f.disp = disp;
  f.etypeSize = datatype::lookup(rep ? le : e)->size();
  f.datarep = datarep;
  f.external32 = datarep == "external32";
  f.userRep = rep;
  f.blocks = std::move(blocks);
  f.prefix.clear();
  int64_t t = 0;
  for (const auto& b : f.blocks) {
    f.prefix.push_back(t);
    t += b.len;
  }
  f.ftSize = fd->size();
  f.ftExtent = fd->extent();
  f.ftContig = f.blocks.size() == 1 && f.blocks[0].len == f.ftExtent;
  f.pos = 0;
  return MPI_SUCCESS;
}

// View position (etypes) of the end of the file.
int eofPosition(File& f, int64_t* pos) {
  struct stat st;
  if (fstat(f.fd, &st) != 0)
    return setErrorCause(io::errnoClass(errno), "fstat: %s", strerror(errno));
  const int64_t bytes = io::streamBytesBefore(f, st.st_size);
  *pos = f.etypeSize > 0 ? (bytes + f.etypeSize - 1) / f.etypeSize : 0;
  return MPI_SUCCESS;
}

// The error of an operation a MPI_MODE_SEQUENTIAL file does not allow.
constexpr int kErrSequential = MPI_ERR_UNSUPPORTED_OPERATION;

int rejectSequential(File* f, const char* func) {
  if (!(f->amode & MPI_MODE_SEQUENTIAL)) return MPI_SUCCESS;
  return raiseFile(f, func, kErrSequential, "the file was opened MPI_MODE_SEQUENTIAL");
}

// ---------- data access ----------

enum class Pos { kExplicit, kIndividual, kShared, kOrdered };

// Argument checks shared by every data access call; returns 0 or the error (raised).
int checkAccess(const char* kFunc, File* f, int64_t offset, const void* buf, int64_t count,
                MPI_Datatype type, bool write, Pos pos) {
  if (count < 0)
    return raiseFile(f, kFunc, MPI_ERR_COUNT, "count %lld is negative",
                     static_cast<long long>(count));
  datatype::Datatype* d = datatype::lookup(type);
  if (!d) return raiseFile(f, kFunc, MPI_ERR_TYPE, "invalid datatype 0x%x", type);
  if (!d->committed()) return raiseFile(f, kFunc, MPI_ERR_TYPE, "the datatype is not committed");
  if (!buf && count > 0 && d->size() > 0)
    return raiseFile(f, kFunc, MPI_ERR_BUFFER, "buffer is NULL");
  if (write && (f->amode & MPI_MODE_RDONLY))
    return raiseFile(f, kFunc, MPI_ERR_READ_ONLY, "the file was opened MPI_MODE_RDONLY");
  if (!write && (f->amode & MPI_MODE_WRONLY))
    return raiseFile(f, kFunc, MPI_ERR_ACCESS, "the file was opened MPI_MODE_WRONLY");
  if ((f->amode & MPI_MODE_SEQUENTIAL) && (pos == Pos::kExplicit || pos == Pos::kIndividual))
    return raiseFile(f, kFunc, kErrSequential,
                     "the file was opened MPI_MODE_SEQUENTIAL: only the shared file pointer");
  if (pos == Pos::kExplicit && offset < 0)
    return raiseFile(f, kFunc, MPI_ERR_ARG, "offset %lld is negative",
                     static_cast<long long>(offset));
  int64_t bytes = count * d->size();
  if (f->userRep)
    if (int rc = io::streamBytes(*f, type, count, &bytes)) return raiseRc(f, kFunc, rc);
  if (f->etypeSize > 0 && bytes % f->etypeSize != 0)
    return raiseFile(f, kFunc, MPI_ERR_TYPE,
                     "the data (%lld bytes) is not a whole number of etypes (%lld bytes)",
                     static_cast<long long>(bytes), static_cast<long long>(f->etypeSize));
  return MPI_SUCCESS;
}

// Runs one data access (checks included); *bytes is what it moved.
int doAccess(const char* kFunc, File* f, int64_t offset, void* buf, int64_t count,
             MPI_Datatype type, bool write, Pos pos, bool collective, int64_t* bytes) {
  *bytes = 0;
  if (int rc = checkAccess(kFunc, f, offset, buf, count, type, write, pos)) return rc;
  const int64_t es = std::max<int64_t>(f->etypeSize, 1);
  const int64_t memSize = datatype::lookup(type)->size();
  int64_t want = count * memSize, oneStream = memSize;  // stream bytes
  if (f->userRep) {
    io::streamBytes(*f, type, 1, &oneStream);  // checked by checkAccess
    want = count * oneStream;
  }
  int64_t start = 0;
  int rc = MPI_SUCCESS;
  switch (pos) {
    case Pos::kExplicit:
      start = offset;
      break;
    case Pos::kIndividual:
      start = f->pos;
      break;
    case Pos::kShared:
      rc = sharedFetchAdd(*f, want / es, &start);
      break;
    case Pos::kOrdered: {
      // Offsets by rank order: rank 0 reads the pointer, a scan places each process.
      int64_t mine = want / es, before = 0, total = 0, base = 0;
      if (f->c->rank == 0) rc = sharedFetchAdd(*f, 0, &base);
      coll::bcast(&base, 1, MPI_INT64_T, 0, *f->c);
      coll::exscan(&mine, &before, 1, MPI_INT64_T, MPI_SUM, *f->c);
      coll::allreduce(&mine, &total, 1, MPI_INT64_T, MPI_SUM, *f->c);
      if (f->c->rank == 0) {
        before = 0;
        if (!rc) rc = sharedSet(*f, base + total);
      }
      start = base + before;
      break;
    }
  }
  if (rc && !collective) return raiseRc(f, kFunc, rc);
  const int64_t v = start * es;
  int64_t done = 0;
  int arc = collective ? io::collectiveAccess(*f, v, buf, rc ? 0 : count, type, write, &done)
                       : io::independentAccess(*f, v, buf, count, type, write, &done);
  if (!rc) rc = arc;
  const int64_t doneStream = f->userRep && memSize > 0 ? done / memSize * oneStream : done;
  if (pos == Pos::kIndividual) f->pos += doneStream / es;
  *bytes = done;
  if (rc) return raiseRc(f, kFunc, rc);
  return MPI_SUCCESS;
}

int completedRequest(int64_t bytes, MPI_Request* request) {
  p2p::Request* r = p2p::newRequest(p2p::Request::Kind::kOther);
  r->received = static_cast<uint64_t>(bytes);
  r->commHandle = MPI_COMM_SELF;
  p2p::completeRequest(r);
  *request = api::requestHandle(r);
  return MPI_SUCCESS;
}

int blocking(const char* kFunc, MPI_File fh, int64_t offset, void* buf, int64_t count,
             MPI_Datatype type, MPI_Status* status, bool write, Pos pos, bool collective) {
  FILE_OR_RAISE(fh, f);
  int64_t bytes = 0;
  const int rc = doAccess(kFunc, f, offset, buf, count, type, write, pos, collective, &bytes);
  if (rc == MPI_SUCCESS) setStatus(status, bytes);
  return rc;
}

int nonblocking(const char* kFunc, MPI_File fh, int64_t offset, void* buf, int64_t count,
                MPI_Datatype type, MPI_Request* request, bool write, Pos pos, bool collective) {
  FILE_OR_RAISE(fh, f);
  if (!request) return raiseFile(f, kFunc, MPI_ERR_REQUEST, "request pointer is NULL");
  int64_t bytes = 0;
  if (int rc = doAccess(kFunc, f, offset, buf, count, type, write, pos, collective, &bytes))
    return rc;
  return completedRequest(bytes, request);
}

int splitBegin(const char* kFunc, MPI_File fh, int64_t offset, void* buf, int64_t count,
               MPI_Datatype type, bool write, Pos pos) {
  FILE_OR_RAISE(fh, f);
  if (f->splitActive)
    return raiseFile(f, kFunc, MPI_ERR_OTHER, "a split collective access is already active");
  int64_t bytes = 0;
  f->splitRc = doAccess(kFunc, f, offset, buf, count, type, write, pos, true, &bytes);
  f->splitBytes = bytes;
  f->splitActive = true;
  return f->splitRc;
}

int splitEnd(const char* kFunc, MPI_File fh, MPI_Status* status) {
  FILE_OR_RAISE(fh, f);
  if (!f->splitActive)
    return raiseFile(f, kFunc, MPI_ERR_OTHER, "no split collective access is active");
  f->splitActive = false;
  if (f->splitRc) return f->splitRc;
  setStatus(status, f->splitBytes);
  return MPI_SUCCESS;
}

}  // namespace

// ---------- error handlers ----------

extern "C" int PMPI_File_create_errhandler(MPI_File_errhandler_function* fn,
                                           MPI_Errhandler* errhandler) {
  CCMPI_API_BEGIN("MPI_File_create_errhandler");
  if (!fn || !errhandler) return api::raisef(kFunc, MPI_ERR_ARG, "NULL argument");
  *errhandler = comm::newFileErrhandler(fn);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_File_create_errhandler)

extern "C" int PMPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler) {
  CCMPI_API_BEGIN("MPI_File_set_errhandler");
  File* f = files().get(file);
  if (!f && file != MPI_FILE_NULL) return raiseBadFile(kFunc, file);
  const comm::Errhandler* e = comm::lookupErrhandler(errhandler);
  if (!e || !(e->predefined || e->kind == comm::Errhandler::Kind::kUserFile))
    return raiseFile(f, kFunc, MPI_ERR_ARG, "0x%x is not a file error handler", errhandler);
  MPI_Errhandler& slot = f ? f->errhandler : gNullErrhandler;
  comm::retainErrhandler(errhandler);
  comm::releaseErrhandler(slot);
  slot = errhandler;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_File_set_errhandler)

extern "C" int PMPI_File_get_errhandler(MPI_File file, MPI_Errhandler* errhandler) {
  CCMPI_API_BEGIN("MPI_File_get_errhandler");
  File* f = files().get(file);
  if (!f && file != MPI_FILE_NULL) return raiseBadFile(kFunc, file);
  if (!errhandler) return raiseFile(f, kFunc, MPI_ERR_ARG, "errhandler pointer is NULL");
  *errhandler = f ? f->errhandler : gNullErrhandler;
  comm::retainErrhandler(*errhandler);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_File_get_errhandler)

extern "C" int PMPI_File_call_errhandler(MPI_File fh, int errorcode) {
  CCMPI_API_BEGIN("MPI_File_call_errhandler");
  File* f = files().get(fh);
  if (!f && fh != MPI_FILE_NULL) return raiseBadFile(kFunc, fh);
  dispatch(f ? f->errhandler : gNullErrhandler, fh, errorcode);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_File_call_errhandler)

// ---------- opening and closing ----------

extern "C" int PMPI_File_open(MPI_Comm comm, const char* filename, int amode, MPI_Info info,
                              MPI_File* fh) {
  CCMPI_API_BEGIN("MPI_File_open");
  comm::Comm* c = comm::lookup(comm);
  if (!c) return raiseFile(nullptr, kFunc, MPI_ERR_COMM, "invalid communicator 0x%x", comm);
  if (c->isInter())
    return raiseFile(nullptr, kFunc, MPI_ERR_COMM, "an intercommunicator cannot open files");
  if (!fh || !filename) return raiseFile(nullptr, kFunc, MPI_ERR_ARG, "NULL argument");
  if (info != MPI_INFO_NULL && !comm::lookupInfo(info))
    return raiseFile(nullptr, kFunc, MPI_ERR_INFO, "invalid info handle 0x%x", info);
  std::string why;
  if (checkAmode(amode, &why))
    return raiseFile(nullptr, kFunc, MPI_ERR_AMODE, "access mode 0x%x: %s", amode, why.c_str());
  // Every process must pass the same access mode.
  int rootMode = amode, differ = 0, anyDiffer = 0;
  coll::bcast(&rootMode, 1, MPI_INT, 0, *c);
  differ = rootMode != amode;
  coll::allreduce(&differ, &anyDiffer, 1, MPI_INT, MPI_MAX, *c);
  if (anyDiffer)
    return raiseFile(nullptr, kFunc, MPI_ERR_NOT_SAME,
                     "the processes passed different access modes");

  auto f = std::make_unique<File>();
  f->path = stripPrefix(filename);
  f->amode = amode;
  if (int rc = comm::dupComm(*c, &f->comm)) return raiseRc(nullptr, kFunc, rc);
  f->c = comm::lookup(f->comm);
  // Rank 0 creates the file (exclusively if asked), then the others open it.
  auto openIt = [&](bool first) {
    int flags = amode & MPI_MODE_RDONLY ? O_RDONLY : O_RDWR;  // WRONLY: read-modify-write
    if (first && (amode & MPI_MODE_CREATE)) flags |= O_CREAT;
    if (first && (amode & MPI_MODE_EXCL)) flags |= O_EXCL;
    int fd = open(f->path.c_str(), flags | O_CLOEXEC, 0666);
    if (fd < 0 && (amode & MPI_MODE_WRONLY) && errno == EACCES)
      fd = open(f->path.c_str(), (flags & ~O_RDWR) | O_WRONLY | O_CLOEXEC, 0666);
    if (fd < 0)
      return setErrorCause(io::errnoClass(errno), "%s: %s", f->path.c_str(), strerror(errno));
    f->fd = fd;
    return MPI_SUCCESS;
  };
  int rc = f->c->rank == 0 ? openIt(true) : MPI_SUCCESS;
  int rootRc = rc;
  coll::bcast(&rootRc, 1, MPI_INT, 0, *f->c);
  if (rootRc == MPI_SUCCESS && f->c->rank != 0) rc = openIt(false);
  int worst = rc;
  coll::allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, *f->c);
  if (worst != MPI_SUCCESS) {
    if (f->fd >= 0) close(f->fd);
    comm::freeComm(f->comm);
    if (rc == MPI_SUCCESS)
      return raiseFile(nullptr, kFunc, rootRc ? rootRc : worst,
                       "the file could not be opened by another process");
    return raiseRc(nullptr, kFunc, rc);
  }
  f->errhandler = gNullErrhandler;
  comm::retainErrhandler(f->errhandler);
  takeHints(*f, info);
  setDefaultHint(*f, "cb_buffer_size", "16777216");
  setDefaultHint(*f, "romio_cb_read", "automatic");
  setDefaultHint(*f, "romio_cb_write", "automatic");
  setDefaultHint(*f, "cb_nodes", std::to_string(f->c->size));
  setDefaultHint(*f, "ind_rd_buffer_size", "4194304");
  installView(*f, 0, MPI_BYTE, MPI_BYTE, "native");
  int64_t initial = 0;
  if (amode & MPI_MODE_APPEND) {
    struct stat st;
    if (fstat(f->fd, &st) == 0) initial = st.st_size;
    f->pos = initial;
  }
  openSharedPointer(*f, initial);
  File* raw = f.get();
  raw->handle = files().add(std::move(f));
  *fh = raw->handle;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_File_open)

extern "C" int PMPI_File_close(MPI_File* fh) {
  CCMPI_API_BEGIN("MPI_File_close");
  if (!fh) return raiseFile(nullptr, kFunc, MPI_ERR_ARG, "file pointer is NULL");
  FILE_OR_RAISE(*fh, f);
  if (f->splitActive)
    return raiseFile(f, kFunc, MPI_ERR_OTHER, "a split collective access is still active");
  int rc = MPI_SUCCESS;
  if (close(f->fd) != 0) rc = setErrorCause(MPI_ERR_IO, "close: %s", strerror(errno));
  if (f->shFd >= 0) close(f->shFd);
  coll::barrier(*f->c);  // everyone is done with the file
  if (f->c->rank == 0) {
    if (!f->shPath.empty()) unlink(f->shPath.c_str());
    if ((f->amode & MPI_MODE_DELETE_ON_CLOSE) && unlink(f->path.c_str()) != 0 && !rc)
      rc = setErrorCause(io::errnoClass(errno), "unlink %s: %s", f->path.c_str(), strerror(errno));
  }
  if (f->amode & MPI_MODE_DELETE_ON_CLOSE) coll::barrier(*f->c);
  releaseViewTypes(*f);
  comm::freeComm(f->comm);
  comm::releaseErrhandler(f->errhandler);
  files().remove(*fh);
  *fh = MPI_FILE_NULL;
  if (rc) return raiseRc(nullptr, kFunc, rc);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_File_close)

extern "C" int PMPI_File_delete(const char* filename, MPI_Info info) {
  CCMPI_API_BEGIN("MPI_File_delete");
  if (!filename) return raiseFile(nullptr, kFunc, MPI_ERR_ARG, "file name is NULL");
  if (info != MPI_INFO_NULL && !comm::lookupInfo(info))
    return raiseFile(nullptr, kFunc, MPI_ERR_INFO, "invalid info handle 0x%x", info);
  const std::string path = stripPrefix(filename);
  if (unlink(path.c_str()) != 0)
    return raiseFile(nullptr, kFunc, io::errnoClass(errno), "%s: %s", path.c_str(),
                     strerror(errno));
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_File_delete)

// ---------- file size, sync, attributes ----------

extern "C" int PMPI_File_set_size(MPI_File fh, MPI_Offset size) {
  CCMPI_API_BEGIN("MPI_File_set_size");
  FILE_OR_RAISE(fh, f);
  if (size < 0) return raiseFile(f, kFunc, MPI_ERR_ARG, "size %lld is negative", size);
  if (int rc = rejectSequential(f, kFunc)) return rc;
  if (f->amode & MPI_MODE_RDONLY)
    return raiseFile(f, kFunc, MPI_ERR_READ_ONLY, "the file was opened MPI_MODE_RDONLY");
  int rc = MPI_SUCCESS;
  if (f->c->rank == 0 && ftruncate(f->fd, size) != 0)
    rc = setErrorCause(io::errnoClass(errno), "ftruncate: %s", strerror(errno));
  coll::bcast(&rc, 1, MPI_INT, 0, *f->c);
  if (rc) return raiseFile(f, kFunc, rc, "the file's size could not be set");
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_File_set_size)

extern "C" int PMPI_File_preallocate(MPI_File fh, MPI_Offset size) {
  CCMPI_API_BEGIN("MPI_File_preallocate");
  FILE_OR_RAISE(fh, f);
  if (size < 0) return raiseFile(f, kFunc, MPI_ERR_ARG, "size %lld is negative", size);
  if (int rc = rejectSequential(f, kFunc)) return rc;
  if (f->amode & MPI_MODE_RDONLY)
    return raiseFile(f, kFunc, MPI_ERR_READ_ONLY, "the file was opened MPI_MODE_RDONLY");
  int rc = MPI_SUCCESS;
  if (f->c->rank == 0 && size > 0) {
    struct stat st;
    if (fstat(f->fd, &st) == 0 && st.st_size < size) {
      const int e = posix_fallocate(f->fd, 0, size);
      if (e != 0 && ftruncate(f->fd, size) != 0)
        rc = setErrorCause(io::errnoClass(e), "posix_fallocate: %s", strerror(e));
    }
  }
  coll::bcast(&rc, 1, MPI_INT, 0, *f->c);
  if (rc) return raiseFile(f, kFunc, rc, "the file could not be preallocated");
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_File_preallocate)

extern "C" int PMPI_File_get_size(MPI_File fh, MPI_Offset* size) {
  CCMPI_API_BEGIN("MPI_File_get_size");
  FILE_OR_RAISE(fh, f);
  if (!size) return raiseFile(f, kFunc, MPI_ERR_ARG, "size pointer is NULL");
  struct stat st;
  if (fstat(f->fd, &st) != 0)
    return raiseFile(f, kFunc, io::errnoClass(errno), "fstat: %s", strerror(errno));
  *size = st.st_size;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_File_get_size)

extern "C" int PMPI_File_get_group(MPI_File fh, MPI_Group* group) {
  CCMPI_API_BEGIN("MPI_File_get_group");
  FILE_OR_RAISE(fh, f);
  if (!group) return raiseFile(f, kFunc, MPI_ERR_ARG, "group pointer is NULL");
  *group = comm::newGroup(f->c->worldRanks);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_File_get_group)

extern "C" int PMPI_File_get_amode(MPI_File fh, int* amode) {
  CCMPI_API_BEGIN("MPI_File_get_amode");
  FILE_OR_RAISE(fh, f);
  if (!amode) return raiseFile(f, kFunc, MPI_ERR_ARG, "amode pointer is NULL");
  *amode = f->amode;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_File_get_amode)

extern "C" int PMPI_File_set_info(MPI_File fh, MPI_Info info) {
  CCMPI_API_BEGIN("MPI_File_set_info");
  FILE_OR_RAISE(fh, f);
  if (info != MPI_INFO_NULL && !comm::lookupInfo(info))
    return raiseFile(f, kFunc, MPI_ERR_INFO, "invalid info handle 0x%x", info);
  takeHints(*f, info);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_File_set_info)

extern "C" int PMPI_File_get_info(MPI_File fh, MPI_Info* info_used) {
  CCMPI_API_BEGIN("MPI_File_get_info");
  FILE_OR_RAISE(fh, f);
  if (!info_used) return raiseFile(f, kFunc, MPI_ERR_ARG, "info pointer is NULL");
  *info_used = comm::newInfo(f->hints);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_File_get_info)

extern "C" int PMPI_File_set_atomicity(MPI_File fh, int flag) {
  CCMPI_API_BEGIN("MPI_File_set_atomicity");
  FILE_OR_RAISE(fh, f);
  int root = flag ? 1 : 0, differ = 0, any = 0;
  coll::bcast(&root, 1, MPI_INT, 0, *f->c);
  differ = root != (flag ? 1 : 0);
  coll::allreduce(&differ, &any, 1, MPI_INT, MPI_MAX, *f->c);
  if (any) return raiseFile(f, kFunc, MPI_ERR_NOT_SAME, "the processes passed different flags");
  f->atomic = flag != 0;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_File_set_atomicity)

extern "C" int PMPI_File_get_atomicity(MPI_File fh, int* flag) {
  CCMPI_API_BEGIN("MPI_File_get_atomicity");
  FILE_OR_RAISE(fh, f);
  if (!flag) return raiseFile(f, kFunc, MPI_ERR_ARG, "flag pointer is NULL");
  *flag = f->atomic ? 1 : 0;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_File_get_atomicity)

extern "C" int PMPI_File_sync(MPI_File fh) {
  CCMPI_API_BEGIN("MPI_File_sync");
  FILE_OR_RAISE(fh, f);
  int rc = MPI_SUCCESS;
  if (fsync(f->fd) != 0 && errno != EINVAL)
    rc = setErrorCause(io::errnoClass(errno), "fsync: %s", strerror(errno));
  coll::barrier(*f->c);
  if (rc) return raiseRc(f, kFunc, rc);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_File_sync)

// ---------- views ----------

extern "C" int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype,
                                  MPI_Datatype filetype, const char* datarep, MPI_Info info) {
  CCMPI_API_BEGIN("MPI_File_set_view");
  FILE_OR_RAISE(fh, f);
  if (f->splitActive)
    return raiseFile(f, kFunc, MPI_ERR_OTHER, "a split collective access is active");
  datatype::Datatype* e = datatype::lookup(etype);
  datatype::Datatype* ft = datatype::lookup(filetype);
  if (!e) return raiseFile(f, kFunc, MPI_ERR_TYPE, "invalid etype 0x%x", etype);
  if (!ft) return raiseFile(f, kFunc, MPI_ERR_TYPE, "invalid filetype 0x%x", filetype);
  if (!datarep) return raiseFile(f, kFunc, MPI_ERR_ARG, "datarep is NULL");
  std::string rep = datarep;
  const io::Datarep* user = io::findDatarep(rep);
  if (!user) {
    for (char& ch : rep) ch = static_cast<char>(tolower(static_cast<unsigned char>(ch)));
    if (rep != "native" && rep != "internal" && rep != "external32")
      return raiseFile(f, kFunc, MPI_ERR_UNSUPPORTED_DATAREP,
                       "data representation \"%s\" is neither predefined nor registered", datarep);
  }
  if (disp == MPI_DISPLACEMENT_CURRENT) {
    if (!(f->amode & MPI_MODE_SEQUENTIAL))
      return raiseFile(f, kFunc, MPI_ERR_ARG, "MPI_DISPLACEMENT_CURRENT needs MPI_MODE_SEQUENTIAL");
    int64_t sp = 0;
    if (int rc = sharedFetchAdd(*f, 0, &sp)) return raiseRc(f, kFunc, rc);
    disp = io::viewByteOffset(*f, sp * f->etypeSize);
  } else if (disp < 0) {
    return raiseFile(f, kFunc, MPI_ERR_ARG, "displacement %lld is negative", disp);
  }
  if (info != MPI_INFO_NULL && !comm::lookupInfo(info))
    return raiseFile(f, kFunc, MPI_ERR_INFO, "invalid info handle 0x%x", info);
  if (e->size() > 0 && ft->size() % e->size() != 0)
    return raiseFile(f, kFunc, MPI_ERR_TYPE, "the filetype is not made of whole etypes");
  if (user) {
    int64_t es = 0, fs = 0;
    if (int rc = io::datarepFileSize(*user, etype, &es)) return raiseRc(f, kFunc, rc);
    if (int rc = io::datarepFileSize(*user, filetype, &fs)) return raiseRc(f, kFunc, rc);
    if (es > 0 && fs % es != 0)
      return raiseFile(f, kFunc, MPI_ERR_TYPE,
                       "in data representation \"%s\" the filetype (%lld bytes) is not made of "
                       "whole etypes (%lld bytes)",
                       datarep, static_cast<long long>(fs), static_cast<long long>(es));
  }
  if (rep == "external32") {
    int64_t es = 0, fs = 0;
    if (datatype::externalSize(etype, 1, &es) || datatype::externalSize(filetype, 1, &fs) ||
        es != e->size() || fs != ft->size())
      return raiseFile(f, kFunc, MPI_ERR_UNSUPPORTED_DATAREP,
                       "external32 views of types whose external size differs from the native "
                       "one are not supported");
  }
  if (int rc = checkViewType(etype, "etype", f->amode & MPI_MODE_RDONLY))
    return raiseRc(f, kFunc, rc);
  if (int rc = checkViewType(filetype, "filetype", f->amode & MPI_MODE_RDONLY))
    return raiseRc(f, kFunc, rc);
  if (int rc = installView(*f, disp, etype, filetype, rep, user)) return raiseRc(f, kFunc, rc);
  takeHints(*f, info);
  // The shared pointer goes back to 0 once every process is here.
  coll::barrier(*f->c);
  int rc = f->c->rank == 0 ? sharedSet(*f, 0) : MPI_SUCCESS;
  coll::bcast(&rc, 1, MPI_INT, 0, *f->c);
  if (rc) return raiseFile(f, kFunc, rc, "the shared file pointer could not be reset");
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_File_set_view)

extern "C" int PMPI_File_get_view(MPI_File fh, MPI_Offset* disp, MPI_Datatype* etype,
                                  MPI_Datatype* filetype, char* datarep) {
  CCMPI_API_BEGIN("MPI_File_get_view");
  FILE_OR_RAISE(fh, f);
  if (!disp || !etype || !filetype || !datarep)
    return raiseFile(f, kFunc, MPI_ERR_ARG, "NULL argument");
  *disp = f->disp;
  for (auto [ours, out] : {std::pair{f->etype, etype}, std::pair{f->filetype, filetype}}) {
    if (datatype::lookup(ours)->predefined())
      *out = ours;
    else if (int rc = datatype::dup(ours, out))
      return raiseRc(f, kFunc, rc);
  }
  snprintf(datarep, MPI_MAX_DATAREP_STRING, "%s", f->datarep.c_str());
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_File_get_view)

extern "C" int PMPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint* extent) {
  CCMPI_API_BEGIN("MPI_File_get_type_extent");
  FILE_OR_RAISE(fh, f);
  datatype::Datatype* d = datatype::lookup(datatype);
  if (!d) return raiseFile(f, kFunc, MPI_ERR_TYPE, "invalid datatype 0x%x", datatype);
  if (!extent) return raiseFile(f, kFunc, MPI_ERR_ARG, "extent pointer is NULL");
  *extent = d->extent();
  if (f->userRep) {
    int64_t e = 0;
    if (int rc = io::datarepExtent(*f->userRep, datatype, &e)) return raiseRc(f, kFunc, rc);
    *extent = e;
  } else if (f->external32) {
    int64_t es = 0;
    if (datatype::externalSize(datatype, 1, &es) == MPI_SUCCESS && es != d->size()) *extent = es;
  }
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_File_get_type_extent)

// ---------- user-defined data representations ----------

extern "C" int PMPI_Register_datarep(const char* datarep,
                                     MPI_Datarep_conversion_function* read_conversion_fn,
                                     MPI_Datarep_conversion_function* write_conversion_fn,
                                     MPI_Datarep_extent_function* dtype_file_extent_fn,
                                     void* extra_state) {
  CCMPI_API_BEGIN("MPI_Register_datarep");
  if (int rc = io::registerDatarep(datarep, read_conversion_fn, write_conversion_fn, nullptr,
                                   nullptr, false, dtype_file_extent_fn, extra_state))
    return raiseRc(nullptr, kFunc, rc);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Register_datarep)

extern "C" int PMPI_Register_datarep_c(const char* datarep,
                                       MPI_Datarep_conversion_function_c* read_conversion_fn,
                                       MPI_Datarep_conversion_function_c* write_conversion_fn,
                                       MPI_Datarep_extent_function* dtype_file_extent_fn,
                                       void* extra_state) {
  CCMPI_API_BEGIN("MPI_Register_datarep_c");
  if (int rc = io::registerDatarep(datarep, nullptr, nullptr, read_conversion_fn,
                                   write_conversion_fn, true, dtype_file_extent_fn, extra_state))
    return raiseRc(nullptr, kFunc, rc);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Register_datarep_c)

// Stands for "no conversion" in MPI_Register_datarep_c; it converts nothing if called.
extern "C" int MPI_CONVERSION_FN_NULL_C(void*, MPI_Datatype, MPI_Count, void*, MPI_Offset, void*) {
  return MPI_SUCCESS;
}

// ---------- positioning ----------

extern "C" int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence) {
  CCMPI_API_BEGIN("MPI_File_seek");
  FILE_OR_RAISE(fh, f);
  if (int rc = rejectSequential(f, kFunc)) return rc;
  int64_t base = 0;
  if (whence == MPI_SEEK_CUR) {
    base = f->pos;
  } else if (whence == MPI_SEEK_END) {
    if (int rc = eofPosition(*f, &base)) return raiseRc(f, kFunc, rc);
  } else if (whence != MPI_SEEK_SET) {
    return raiseFile(f, kFunc, MPI_ERR_ARG, "invalid whence %d", whence);
  }
  if (base + offset < 0) return raiseFile(f, kFunc, MPI_ERR_ARG, "the position would be negative");
  f->pos = base + offset;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_File_seek)

extern "C" int PMPI_File_get_position(MPI_File fh, MPI_Offset* offset) {
  CCMPI_API_BEGIN("MPI_File_get_position");
  FILE_OR_RAISE(fh, f);
  if (!offset) return raiseFile(f, kFunc, MPI_ERR_ARG, "offset pointer is NULL");
  *offset = f->pos;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_File_get_position)

extern "C" int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset* disp) {
  CCMPI_API_BEGIN("MPI_File_get_byte_offset");
  FILE_OR_RAISE(fh, f);
  if (!disp) return raiseFile(f, kFunc, MPI_ERR_ARG, "disp pointer is NULL");
  if (offset < 0) return raiseFile(f, kFunc, MPI_ERR_ARG, "offset %lld is negative", offset);
  *disp = io::viewByteOffset(*f, offset * f->etypeSize);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_File_get_byte_offset)

extern "C" int PMPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence) {
  CCMPI_API_BEGIN("MPI_File_seek_shared");
  FILE_OR_RAISE(fh, f);
  if (whence != MPI_SEEK_SET && whence != MPI_SEEK_CUR && whence != MPI_SEEK_END)
    return raiseFile(f, kFunc, MPI_ERR_ARG, "invalid whence %d", whence);
  long long mine[2] = {offset, whence}, root[2] = {offset, whence};
  coll::bcast(root, 2, MPI_LONG_LONG, 0, *f->c);
  int differ = root[0] != mine[0] || root[1] != mine[1], any = 0;
  coll::allreduce(&differ, &any, 1, MPI_INT, MPI_MAX, *f->c);
  if (any) return raiseFile(f, kFunc, MPI_ERR_NOT_SAME, "the processes passed different offsets");
  int rc = MPI_SUCCESS;
  coll::barrier(*f->c);  // earlier shared-pointer accesses are over
  if (f->c->rank == 0) {
    int64_t base = 0;
    if (whence == MPI_SEEK_CUR)
      rc = sharedFetchAdd(*f, 0, &base);
    else if (whence == MPI_SEEK_END)
      rc = eofPosition(*f, &base);
    if (!rc && base + offset < 0) rc = setErrorCause(MPI_ERR_ARG, "the position would be negative");
    if (!rc) rc = sharedSet(*f, base + offset);
  }
  coll::bcast(&rc, 1, MPI_INT, 0, *f->c);
  if (rc) return raiseFile(f, kFunc, rc, "the shared file pointer could not be moved");
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_File_seek_shared)

extern "C" int PMPI_File_get_position_shared(MPI_File fh, MPI_Offset* offset) {
  CCMPI_API_BEGIN("MPI_File_get_position_shared");
  FILE_OR_RAISE(fh, f);
  if (!offset) return raiseFile(f, kFunc, MPI_ERR_ARG, "offset pointer is NULL");
  int64_t v = 0;
  if (int rc = sharedFetchAdd(*f, 0, &v)) return raiseRc(f, kFunc, rc);
  *offset = v;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_File_get_position_shared)

// ---------- data access ----------

extern "C" int PMPI_File_read_at(MPI_File fh, MPI_Offset offset, void* buf, int count,
                                 MPI_Datatype datatype, MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_File_read_at");
  return blocking(kFunc, fh, offset, buf, count, datatype, status, false, Pos::kExplicit, false);
}
CCMPI_MPI_ALIAS(MPI_File_read_at)

extern "C" int PMPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void* buf, int count,
                                     MPI_Datatype datatype, MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_File_read_at_all");
  return blocking(kFunc, fh, offset, buf, count, datatype, status, false, Pos::kExplicit, true);
}
CCMPI_MPI_ALIAS(MPI_File_read_at_all)

extern "C" int PMPI_File_write_at(MPI_File fh, MPI_Offset offset, const void* buf, int count,
                                  MPI_Datatype datatype, MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_File_write_at");
  return blocking(kFunc, fh, offset, const_cast<void*>(buf), count, datatype, status, true,
                  Pos::kExplicit, false);
}
CCMPI_MPI_ALIAS(MPI_File_write_at)

extern "C" int PMPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void* buf, int count,
                                      MPI_Datatype datatype, MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_File_write_at_all");
  return blocking(kFunc, fh, offset, const_cast<void*>(buf), count, datatype, status, true,
                  Pos::kExplicit, true);
}
CCMPI_MPI_ALIAS(MPI_File_write_at_all)

extern "C" int PMPI_File_read(MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                              MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_File_read");
  return blocking(kFunc, fh, 0, buf, count, datatype, status, false, Pos::kIndividual, false);
}
CCMPI_MPI_ALIAS(MPI_File_read)

extern "C" int PMPI_File_read_all(MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                                  MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_File_read_all");
  return blocking(kFunc, fh, 0, buf, count, datatype, status, false, Pos::kIndividual, true);
}
CCMPI_MPI_ALIAS(MPI_File_read_all)

extern "C" int PMPI_File_write(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                               MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_File_write");
  return blocking(kFunc, fh, 0, const_cast<void*>(buf), count, datatype, status, true,
                  Pos::kIndividual, false);
}
CCMPI_MPI_ALIAS(MPI_File_write)

extern "C" int PMPI_File_write_all(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                                   MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_File_write_all");
  return blocking(kFunc, fh, 0, const_cast<void*>(buf), count, datatype, status, true,
                  Pos::kIndividual, true);
}
CCMPI_MPI_ALIAS(MPI_File_write_all)

extern "C" int PMPI_File_read_shared(MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                                     MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_File_read_shared");
  return blocking(kFunc, fh, 0, buf, count, datatype, status, false, Pos::kShared, false);
}
CCMPI_MPI_ALIAS(MPI_File_read_shared)

extern "C" int PMPI_File_write_shared(MPI_File fh, const void* buf, int count,
                                      MPI_Datatype datatype, MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_File_write_shared");
  return blocking(kFunc, fh, 0, const_cast<void*>(buf), count, datatype, status, true, Pos::kShared,
                  false);
}
CCMPI_MPI_ALIAS(MPI_File_write_shared)

extern "C" int PMPI_File_read_ordered(MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                                      MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_File_read_ordered");
  return blocking(kFunc, fh, 0, buf, count, datatype, status, false, Pos::kOrdered, true);
}
CCMPI_MPI_ALIAS(MPI_File_read_ordered)

extern "C" int PMPI_File_write_ordered(MPI_File fh, const void* buf, int count,
                                       MPI_Datatype datatype, MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_File_write_ordered");
  return blocking(kFunc, fh, 0, const_cast<void*>(buf), count, datatype, status, true,
                  Pos::kOrdered, true);
}
CCMPI_MPI_ALIAS(MPI_File_write_ordered)

extern "C" int PMPI_File_iread_at(MPI_File fh, MPI_Offset offset, void* buf, int count,
                                  MPI_Datatype datatype, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_File_iread_at");
  return nonblocking(kFunc, fh, offset, buf, count, datatype, request, false, Pos::kExplicit,
                     false);
}
CCMPI_MPI_ALIAS(MPI_File_iread_at)

extern "C" int PMPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void* buf, int count,
                                      MPI_Datatype datatype, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_File_iread_at_all");
  return nonblocking(kFunc, fh, offset, buf, count, datatype, request, false, Pos::kExplicit, true);
}
CCMPI_MPI_ALIAS(MPI_File_iread_at_all)

extern "C" int PMPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void* buf, int count,
                                   MPI_Datatype datatype, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_File_iwrite_at");
  return nonblocking(kFunc, fh, offset, const_cast<void*>(buf), count, datatype, request, true,
                     Pos::kExplicit, false);
}
CCMPI_MPI_ALIAS(MPI_File_iwrite_at)

extern "C" int PMPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void* buf, int count,
                                       MPI_Datatype datatype, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_File_iwrite_at_all");
  return nonblocking(kFunc, fh, offset, const_cast<void*>(buf), count, datatype, request, true,
                     Pos::kExplicit, true);
}
CCMPI_MPI_ALIAS(MPI_File_iwrite_at_all)

extern "C" int PMPI_File_iread(MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                               MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_File_iread");
  return nonblocking(kFunc, fh, 0, buf, count, datatype, request, false, Pos::kIndividual, false);
}
CCMPI_MPI_ALIAS(MPI_File_iread)

extern "C" int PMPI_File_iread_all(MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                                   MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_File_iread_all");
  return nonblocking(kFunc, fh, 0, buf, count, datatype, request, false, Pos::kIndividual, true);
}
CCMPI_MPI_ALIAS(MPI_File_iread_all)

extern "C" int PMPI_File_iwrite(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                                MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_File_iwrite");
  return nonblocking(kFunc, fh, 0, const_cast<void*>(buf), count, datatype, request, true,
                     Pos::kIndividual, false);
}
CCMPI_MPI_ALIAS(MPI_File_iwrite)

extern "C" int PMPI_File_iwrite_all(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                                    MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_File_iwrite_all");
  return nonblocking(kFunc, fh, 0, const_cast<void*>(buf), count, datatype, request, true,
                     Pos::kIndividual, true);
}
CCMPI_MPI_ALIAS(MPI_File_iwrite_all)

extern "C" int PMPI_File_iread_shared(MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                                      MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_File_iread_shared");
  return nonblocking(kFunc, fh, 0, buf, count, datatype, request, false, Pos::kShared, false);
}
CCMPI_MPI_ALIAS(MPI_File_iread_shared)

extern "C" int PMPI_File_iwrite_shared(MPI_File fh, const void* buf, int count,
                                       MPI_Datatype datatype, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_File_iwrite_shared");
  return nonblocking(kFunc, fh, 0, const_cast<void*>(buf), count, datatype, request, true,
                     Pos::kShared, false);
}
CCMPI_MPI_ALIAS(MPI_File_iwrite_shared)

// ---------- split collectives ----------

extern "C" int PMPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void* buf, int count,
                                           MPI_Datatype datatype) {
  CCMPI_API_BEGIN("MPI_File_read_at_all_begin");
  return splitBegin(kFunc, fh, offset, buf, count, datatype, false, Pos::kExplicit);
}
CCMPI_MPI_ALIAS(MPI_File_read_at_all_begin)

extern "C" int PMPI_File_read_at_all_end(MPI_File fh, void* buf, MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_File_read_at_all_end");
  (void)buf;
  return splitEnd(kFunc, fh, status);
}
CCMPI_MPI_ALIAS(MPI_File_read_at_all_end)

extern "C" int PMPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void* buf,
                                            int count, MPI_Datatype datatype) {
  CCMPI_API_BEGIN("MPI_File_write_at_all_begin");
  return splitBegin(kFunc, fh, offset, const_cast<void*>(buf), count, datatype, true,
                    Pos::kExplicit);
}
CCMPI_MPI_ALIAS(MPI_File_write_at_all_begin)

extern "C" int PMPI_File_write_at_all_end(MPI_File fh, const void* buf, MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_File_write_at_all_end");
  (void)buf;
  return splitEnd(kFunc, fh, status);
}
CCMPI_MPI_ALIAS(MPI_File_write_at_all_end)

extern "C" int PMPI_File_read_all_begin(MPI_File fh, void* buf, int count, MPI_Datatype datatype) {
  CCMPI_API_BEGIN("MPI_File_read_all_begin");
  return splitBegin(kFunc, fh, 0, buf, count, datatype, false, Pos::kIndividual);
}
CCMPI_MPI_ALIAS(MPI_File_read_all_begin)

extern "C" int PMPI_File_read_all_end(MPI_File fh, void* buf, MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_File_read_all_end");
  (void)buf;
  return splitEnd(kFunc, fh, status);
}
CCMPI_MPI_ALIAS(MPI_File_read_all_end)

extern "C" int PMPI_File_write_all_begin(MPI_File fh, const void* buf, int count,
                                         MPI_Datatype datatype) {
  CCMPI_API_BEGIN("MPI_File_write_all_begin");
  return splitBegin(kFunc, fh, 0, const_cast<void*>(buf), count, datatype, true, Pos::kIndividual);
}
CCMPI_MPI_ALIAS(MPI_File_write_all_begin)

extern "C" int PMPI_File_write_all_end(MPI_File fh, const void* buf, MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_File_write_all_end");
  (void)buf;
  return splitEnd(kFunc, fh, status);
}
CCMPI_MPI_ALIAS(MPI_File_write_all_end)

extern "C" int PMPI_File_read_ordered_begin(MPI_File fh, void* buf, int count,
                                            MPI_Datatype datatype) {
  CCMPI_API_BEGIN("MPI_File_read_ordered_begin");
  return splitBegin(kFunc, fh, 0, buf, count, datatype, false, Pos::kOrdered);
}
CCMPI_MPI_ALIAS(MPI_File_read_ordered_begin)

extern "C" int PMPI_File_read_ordered_end(MPI_File fh, void* buf, MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_File_read_ordered_end");
  (void)buf;
  return splitEnd(kFunc, fh, status);
}
CCMPI_MPI_ALIAS(MPI_File_read_ordered_end)

extern "C" int PMPI_File_write_ordered_begin(MPI_File fh, const void* buf, int count,
                                             MPI_Datatype datatype) {
  CCMPI_API_BEGIN("MPI_File_write_ordered_begin");
  return splitBegin(kFunc, fh, 0, const_cast<void*>(buf), count, datatype, true, Pos::kOrdered);
}
CCMPI_MPI_ALIAS(MPI_File_write_ordered_begin)

extern "C" int PMPI_File_write_ordered_end(MPI_File fh, const void* buf, MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_File_write_ordered_end");
  (void)buf;
  return splitEnd(kFunc, fh, status);
}
CCMPI_MPI_ALIAS(MPI_File_write_ordered_end)

// ---------- large-count forms (MPI-4.0) ----------

// BEGIN large-count block (generated by tools/gen_large_count.py; do not edit)
extern "C" int PMPI_File_read_at_c(MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count,
                                   MPI_Datatype datatype, MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_File_read_at_c");
  return blocking(kFunc, fh, offset, buf, count, datatype, status, false, Pos::kExplicit, false);
}
CCMPI_MPI_ALIAS(MPI_File_read_at_c)

extern "C" int PMPI_File_read_at_all_c(MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count,
                                       MPI_Datatype datatype, MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_File_read_at_all_c");
  return blocking(kFunc, fh, offset, buf, count, datatype, status, false, Pos::kExplicit, true);
}
CCMPI_MPI_ALIAS(MPI_File_read_at_all_c)

extern "C" int PMPI_File_write_at_c(MPI_File fh, MPI_Offset offset, const void* buf,
                                    MPI_Count count, MPI_Datatype datatype, MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_File_write_at_c");
  return blocking(kFunc, fh, offset, const_cast<void*>(buf), count, datatype, status, true,
                  Pos::kExplicit, false);
}
CCMPI_MPI_ALIAS(MPI_File_write_at_c)

extern "C" int PMPI_File_write_at_all_c(MPI_File fh, MPI_Offset offset, const void* buf,
                                        MPI_Count count, MPI_Datatype datatype,
                                        MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_File_write_at_all_c");
  return blocking(kFunc, fh, offset, const_cast<void*>(buf), count, datatype, status, true,
                  Pos::kExplicit, true);
}
CCMPI_MPI_ALIAS(MPI_File_write_at_all_c)

extern "C" int PMPI_File_iread_at_c(MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count,
                                    MPI_Datatype datatype, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_File_iread_at_c");
  return nonblocking(kFunc, fh, offset, buf, count, datatype, request, false, Pos::kExplicit,
                     false);
}
CCMPI_MPI_ALIAS(MPI_File_iread_at_c)

extern "C" int PMPI_File_iwrite_at_c(MPI_File fh, MPI_Offset offset, const void* buf,
                                     MPI_Count count, MPI_Datatype datatype, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_File_iwrite_at_c");
  return nonblocking(kFunc, fh, offset, const_cast<void*>(buf), count, datatype, request, true,
                     Pos::kExplicit, false);
}
CCMPI_MPI_ALIAS(MPI_File_iwrite_at_c)

extern "C" int PMPI_File_iread_at_all_c(MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count,
                                        MPI_Datatype datatype, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_File_iread_at_all_c");
  return nonblocking(kFunc, fh, offset, buf, count, datatype, request, false, Pos::kExplicit, true);
}
CCMPI_MPI_ALIAS(MPI_File_iread_at_all_c)

extern "C" int PMPI_File_iwrite_at_all_c(MPI_File fh, MPI_Offset offset, const void* buf,
                                         MPI_Count count, MPI_Datatype datatype,
                                         MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_File_iwrite_at_all_c");
  return nonblocking(kFunc, fh, offset, const_cast<void*>(buf), count, datatype, request, true,
                     Pos::kExplicit, true);
}
CCMPI_MPI_ALIAS(MPI_File_iwrite_at_all_c)

extern "C" int PMPI_File_read_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype,
                                MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_File_read_c");
  return blocking(kFunc, fh, 0, buf, count, datatype, status, false, Pos::kIndividual, false);
}
CCMPI_MPI_ALIAS(MPI_File_read_c)

extern "C" int PMPI_File_read_all_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype,
                                    MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_File_read_all_c");
  return blocking(kFunc, fh, 0, buf, count, datatype, status, false, Pos::kIndividual, true);
}
CCMPI_MPI_ALIAS(MPI_File_read_all_c)

extern "C" int PMPI_File_write_c(MPI_File fh, const void* buf, MPI_Count count,
                                 MPI_Datatype datatype, MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_File_write_c");
  return blocking(kFunc, fh, 0, const_cast<void*>(buf), count, datatype, status, true,
                  Pos::kIndividual, false);
}
CCMPI_MPI_ALIAS(MPI_File_write_c)

extern "C" int PMPI_File_write_all_c(MPI_File fh, const void* buf, MPI_Count count,
                                     MPI_Datatype datatype, MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_File_write_all_c");
  return blocking(kFunc, fh, 0, const_cast<void*>(buf), count, datatype, status, true,
                  Pos::kIndividual, true);
}
CCMPI_MPI_ALIAS(MPI_File_write_all_c)

extern "C" int PMPI_File_iread_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype,
                                 MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_File_iread_c");
  return nonblocking(kFunc, fh, 0, buf, count, datatype, request, false, Pos::kIndividual, false);
}
CCMPI_MPI_ALIAS(MPI_File_iread_c)

extern "C" int PMPI_File_iwrite_c(MPI_File fh, const void* buf, MPI_Count count,
                                  MPI_Datatype datatype, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_File_iwrite_c");
  return nonblocking(kFunc, fh, 0, const_cast<void*>(buf), count, datatype, request, true,
                     Pos::kIndividual, false);
}
CCMPI_MPI_ALIAS(MPI_File_iwrite_c)

extern "C" int PMPI_File_iread_all_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype,
                                     MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_File_iread_all_c");
  return nonblocking(kFunc, fh, 0, buf, count, datatype, request, false, Pos::kIndividual, true);
}
CCMPI_MPI_ALIAS(MPI_File_iread_all_c)

extern "C" int PMPI_File_iwrite_all_c(MPI_File fh, const void* buf, MPI_Count count,
                                      MPI_Datatype datatype, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_File_iwrite_all_c");
  return nonblocking(kFunc, fh, 0, const_cast<void*>(buf), count, datatype, request, true,
                     Pos::kIndividual, true);
}
CCMPI_MPI_ALIAS(MPI_File_iwrite_all_c)

extern "C" int PMPI_File_read_shared_c(MPI_File fh, void* buf, MPI_Count count,
                                       MPI_Datatype datatype, MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_File_read_shared_c");
  return blocking(kFunc, fh, 0, buf, count, datatype, status, false, Pos::kShared, false);
}
CCMPI_MPI_ALIAS(MPI_File_read_shared_c)

extern "C" int PMPI_File_write_shared_c(MPI_File fh, const void* buf, MPI_Count count,
                                        MPI_Datatype datatype, MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_File_write_shared_c");
  return blocking(kFunc, fh, 0, const_cast<void*>(buf), count, datatype, status, true, Pos::kShared,
                  false);
}
CCMPI_MPI_ALIAS(MPI_File_write_shared_c)

extern "C" int PMPI_File_iread_shared_c(MPI_File fh, void* buf, MPI_Count count,
                                        MPI_Datatype datatype, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_File_iread_shared_c");
  return nonblocking(kFunc, fh, 0, buf, count, datatype, request, false, Pos::kShared, false);
}
CCMPI_MPI_ALIAS(MPI_File_iread_shared_c)

extern "C" int PMPI_File_iwrite_shared_c(MPI_File fh, const void* buf, MPI_Count count,
                                         MPI_Datatype datatype, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_File_iwrite_shared_c");
  return nonblocking(kFunc, fh, 0, const_cast<void*>(buf), count, datatype, request, true,
                     Pos::kShared, false);
}
CCMPI_MPI_ALIAS(MPI_File_iwrite_shared_c)

extern "C" int PMPI_File_read_ordered_c(MPI_File fh, void* buf, MPI_Count count,
                                        MPI_Datatype datatype, MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_File_read_ordered_c");
  return blocking(kFunc, fh, 0, buf, count, datatype, status, false, Pos::kOrdered, true);
}
CCMPI_MPI_ALIAS(MPI_File_read_ordered_c)

extern "C" int PMPI_File_write_ordered_c(MPI_File fh, const void* buf, MPI_Count count,
                                         MPI_Datatype datatype, MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_File_write_ordered_c");
  return blocking(kFunc, fh, 0, const_cast<void*>(buf), count, datatype, status, true,
                  Pos::kOrdered, true);
}
CCMPI_MPI_ALIAS(MPI_File_write_ordered_c)

extern "C" int PMPI_File_read_at_all_begin_c(MPI_File fh, MPI_Offset offset, void* buf,
                                             MPI_Count count, MPI_Datatype datatype) {
  CCMPI_API_BEGIN("MPI_File_read_at_all_begin_c");
  return splitBegin(kFunc, fh, offset, buf, count, datatype, false, Pos::kExplicit);
}
CCMPI_MPI_ALIAS(MPI_File_read_at_all_begin_c)

extern "C" int PMPI_File_write_at_all_begin_c(MPI_File fh, MPI_Offset offset, const void* buf,
                                              MPI_Count count, MPI_Datatype datatype) {
  CCMPI_API_BEGIN("MPI_File_write_at_all_begin_c");
  return splitBegin(kFunc, fh, offset, const_cast<void*>(buf), count, datatype, true,
                    Pos::kExplicit);
}
CCMPI_MPI_ALIAS(MPI_File_write_at_all_begin_c)

extern "C" int PMPI_File_read_all_begin_c(MPI_File fh, void* buf, MPI_Count count,
                                          MPI_Datatype datatype) {
  CCMPI_API_BEGIN("MPI_File_read_all_begin_c");
  return splitBegin(kFunc, fh, 0, buf, count, datatype, false, Pos::kIndividual);
}
CCMPI_MPI_ALIAS(MPI_File_read_all_begin_c)

extern "C" int PMPI_File_write_all_begin_c(MPI_File fh, const void* buf, MPI_Count count,
                                           MPI_Datatype datatype) {
  CCMPI_API_BEGIN("MPI_File_write_all_begin_c");
  return splitBegin(kFunc, fh, 0, const_cast<void*>(buf), count, datatype, true, Pos::kIndividual);
}
CCMPI_MPI_ALIAS(MPI_File_write_all_begin_c)

extern "C" int PMPI_File_read_ordered_begin_c(MPI_File fh, void* buf, MPI_Count count,
                                              MPI_Datatype datatype) {
  CCMPI_API_BEGIN("MPI_File_read_ordered_begin_c");
  return splitBegin(kFunc, fh, 0, buf, count, datatype, false, Pos::kOrdered);
}
CCMPI_MPI_ALIAS(MPI_File_read_ordered_begin_c)

extern "C" int PMPI_File_write_ordered_begin_c(MPI_File fh, const void* buf, MPI_Count count,
                                               MPI_Datatype datatype) {
  CCMPI_API_BEGIN("MPI_File_write_ordered_begin_c");
  return splitBegin(kFunc, fh, 0, const_cast<void*>(buf), count, datatype, true, Pos::kOrdered);
}
CCMPI_MPI_ALIAS(MPI_File_write_ordered_begin_c)
// END large-count block

extern "C" int PMPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count* extent) {
  CCMPI_API_BEGIN("MPI_File_get_type_extent_c");
  api::FuncNameScope scope(kFunc);
  MPI_Aint e = 0;
  const int rc = PMPI_File_get_type_extent(fh, datatype, &e);
  if (rc == MPI_SUCCESS && extent) *extent = e;
  return rc;
}
CCMPI_MPI_ALIAS(MPI_File_get_type_extent_c)
