#pragma once
// MPI-IO internals shared by the file entry points (file_api.cc) and the data access
// engine (file_access.cc).
//
// A file is a POSIX descriptor opened by every process of a private duplicate of the
// communicator. Its view (displacement, etype, filetype, data representation) maps the
// view's data stream (etype units for the file pointers) onto file bytes through the
// filetype's flattened blocks, tiled every filetype extent from the displacement. The
// individual file pointer lives in the process; the shared file pointer is an 8-byte
// counter in a side file next to the data file (in the temporary directory when that is
// not writable), updated under an fcntl lock. Data goes straight to the file with
// pread/pwrite, so nothing written is held back at MPI_File_close.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "comm/comm.h"
#include "datatype/datatype.h"

namespace ccmpi::io {

struct Datarep;  // a user-defined data representation (file_datarep.cc)

struct File {
  MPI_File handle = MPI_FILE_NULL;
  MPI_Comm comm = MPI_COMM_NULL;  // private duplicate of the user's communicator
  comm::Comm* c = nullptr;
  std::string path;
  int fd = -1;
  int amode = 0;
  MPI_Errhandler errhandler = MPI_ERRORS_RETURN;
  comm::InfoEntries hints;
  bool atomic = false;

  // View.
  int64_t disp = 0;
  MPI_Datatype etype = MPI_BYTE;     // our own reference (a duplicate if derived)
  MPI_Datatype filetype = MPI_BYTE;  // ditto
  int64_t etypeSize = 1;
  std::string datarep = "native";
  bool external32 = false;
  const Datarep* userRep = nullptr;     // the view's user-defined representation, if any
  std::vector<datatype::Block> blocks;  // one filetype element, merged
  std::vector<int64_t> prefix;          // data bytes before blocks[i]
  int64_t ftSize = 1, ftExtent = 1;
  bool ftContig = true;  // blocks tile the file without holes

  int64_t pos = 0;  // individual file pointer, in etypes

  // Shared file pointer (etypes) in the side file.
  std::string shPath;
  int shFd = -1;

  // Split collective in progress.
  bool splitActive = false;
  int splitRc = MPI_SUCCESS;
  int64_t splitBytes = 0;
};

// Hint values (with the defaults) used by the access engine.
int64_t hintInt(const File& f, const char* key, int64_t dflt);
std::string hintStr(const File& f, const char* key, const char* dflt);

// One piece of the file touched by an access: `len` bytes at file offset `off`, holding
// stream bytes from `soff` on.
struct Segment {
  int64_t off;
  int64_t len;
  int64_t soff;
};
// The file segments of view stream bytes [v, v + len), adjacent ones merged.
void mapView(const File& f, int64_t v, int64_t len, std::vector<Segment>* out);
// File byte offset of view stream byte v (the start of its segment).
int64_t viewByteOffset(const File& f, int64_t v);
// View stream bytes that lie before file byte `size` (for MPI_SEEK_END).
int64_t streamBytesBefore(const File& f, int64_t size);

// Data access of `count` elements of `type` at `buf`, starting at view stream byte `v`.
// *done is the number of bytes (of the memory representation) moved. Returns an MPI error
// class with its cause recorded (setErrorCause). Collective access must be called by every
// process of the file's communicator.
int independentAccess(File& f, int64_t v, void* buf, int64_t count, MPI_Datatype type, bool write,
                      int64_t* done);
int collectiveAccess(File& f, int64_t v, void* buf, int64_t count, MPI_Datatype type, bool write,
                     int64_t* done);

// User-defined data representations (file_datarep.cc). Registered ones live until the
// process ends. MPI_Register_datarep's checks: returns an error class with its cause.
int registerDatarep(const char* datarep, MPI_Datarep_conversion_function* r,
                    MPI_Datarep_conversion_function* w, MPI_Datarep_conversion_function_c* rc,
                    MPI_Datarep_conversion_function_c* wc, bool large,
                    MPI_Datarep_extent_function* extent, void* extra);
const Datarep* findDatarep(const std::string& name);
// A committed datatype of bytes laid out as `type` is in a file of representation `rep`
// (the caller frees it); its size and extent.
int fileLayoutType(const Datarep& rep, MPI_Datatype type, MPI_Datatype* out);
int datarepFileSize(const Datarep& rep, MPI_Datatype type, int64_t* size);
int datarepExtent(const Datarep& rep, MPI_Datatype type, int64_t* extent);
// Conversion of `count` elements of `type` at buf to/from the file representation in
// filebuf (which holds count * datarepFileSize bytes).
int datarepToFile(const Datarep& rep, const void* buf, MPI_Datatype type, int64_t count,
                  unsigned char* filebuf);
int datarepFromFile(const Datarep& rep, void* buf, MPI_Datatype type, int64_t count,
                    unsigned char* filebuf);
// Bytes of the view's data stream that `count` elements of `type` occupy.
int streamBytes(const File& f, MPI_Datatype type, int64_t count, int64_t* bytes);

// Error class for an errno value of a file operation.
int errnoClass(int err);

}  // namespace ccmpi::io
