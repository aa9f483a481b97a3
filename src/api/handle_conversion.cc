// Language interoperability (MPI-3.1 section 17.2): handle and status conversion between
// C and Fortran, and the predefined MPI_CONVERSION_FN_NULL.
//
// Every ccmpi handle is already an int that Fortran can hold (see include/mpi.h), so the
// handle conversions are the identity and need neither MPI_Init nor a table lookup; an
// invalid handle stays invalid and is reported by the call it is passed to.
//
// A Fortran status is MPI_F_STATUS_SIZE INTEGERs and TYPE(MPI_Status) has the same shape:
// MPI_SOURCE, MPI_TAG, MPI_ERROR at MPI_F_SOURCE/MPI_F_TAG/MPI_F_ERROR, then the cancelled
// flag and the 64-bit received byte count as two INTEGERs (native byte order). The status
// conversions copy all of it, so MPI_Get_count, MPI_Test_cancelled ... give the same answer
// on a status that went through Fortran and back.
#include <cstring>

#include "api/api.h"

namespace {

constexpr int kFCancelled = 3;  // index of the cancelled flag in a Fortran status
constexpr int kFCount = 4;      // first of the two INTEGERs holding ccmpi_count

static_assert(MPI_F_SOURCE == 0 && MPI_F_TAG == 1 && MPI_F_ERROR == 2);
static_assert(sizeof(long long) == 2 * sizeof(MPI_Fint));
static_assert(kFCount + 2 == MPI_F_STATUS_SIZE);
static_assert(sizeof(MPI_F08_status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint));

void toFortran(const MPI_Status& c, MPI_Fint* f) {
  f[MPI_F_SOURCE] = c.MPI_SOURCE;
  f[MPI_F_TAG] = c.MPI_TAG;
  f[MPI_F_ERROR] = c.MPI_ERROR;
  f[kFCancelled] = c.ccmpi_cancelled;
  std::memcpy(&f[kFCount], &c.ccmpi_count, sizeof c.ccmpi_count);
}

void fromFortran(const MPI_Fint* f, MPI_Status* c) {
  c->MPI_SOURCE = f[MPI_F_SOURCE];
  c->MPI_TAG = f[MPI_F_TAG];
  c->MPI_ERROR = f[MPI_F_ERROR];
  c->ccmpi_cancelled = f[kFCancelled];
  std::memcpy(&c->ccmpi_count, &f[kFCount], sizeof c->ccmpi_count);
}

// The MPI_F08_status fields, in order, as the INTEGER array of a Fortran status.
void toF08(const MPI_Status& c, MPI_F08_status* f) {
  MPI_Fint a[MPI_F_STATUS_SIZE];
  toFortran(c, a);
  f->MPI_SOURCE = a[MPI_F_SOURCE];
  f->MPI_TAG = a[MPI_F_TAG];
  f->MPI_ERROR = a[MPI_F_ERROR];
  std::memcpy(f->ccmpi_internal, &a[3], sizeof f->ccmpi_internal);
}

void fromF08(const MPI_F08_status& f, MPI_Status* c) {
  MPI_Fint a[MPI_F_STATUS_SIZE];
  a[MPI_F_SOURCE] = f.MPI_SOURCE;
  a[MPI_F_TAG] = f.MPI_TAG;
  a[MPI_F_ERROR] = f.MPI_ERROR;
  std::memcpy(&a[3], f.ccmpi_internal, sizeof f.ccmpi_internal);
  fromFortran(a, c);
}

// MPI_STATUS_IGNORE and its Fortran counterparts are the address 1; passing one (or NULL)
// to a conversion is erroneous (MPI-3.1 17.2.5).
bool badPointer(const void* p) {
  return p == nullptr || p == reinterpret_cast<const void*>(1);
}

}  // namespace

// Handles: the identity (written out so each PMPI_ definition can be found by grep).
extern "C" MPI_Fint PMPI_Comm_c2f(MPI_Comm comm) {
  return comm;
}
CCMPI_MPI_ALIAS(MPI_Comm_c2f)
extern "C" MPI_Comm PMPI_Comm_f2c(MPI_Fint comm) {
  return comm;
}
CCMPI_MPI_ALIAS(MPI_Comm_f2c)
extern "C" MPI_Fint PMPI_Errhandler_c2f(MPI_Errhandler errhandler) {
  return errhandler;
}
CCMPI_MPI_ALIAS(MPI_Errhandler_c2f)
extern "C" MPI_Errhandler PMPI_Errhandler_f2c(MPI_Fint errhandler) {
  return errhandler;
}
CCMPI_MPI_ALIAS(MPI_Errhandler_f2c)
extern "C" MPI_Fint PMPI_File_c2f(MPI_File file) {
  return file;
}
CCMPI_MPI_ALIAS(MPI_File_c2f)
extern "C" MPI_File PMPI_File_f2c(MPI_Fint file) {
  return file;
}
CCMPI_MPI_ALIAS(MPI_File_f2c)
extern "C" MPI_Fint PMPI_Group_c2f(MPI_Group group) {
  return group;
}
CCMPI_MPI_ALIAS(MPI_Group_c2f)
extern "C" MPI_Group PMPI_Group_f2c(MPI_Fint group) {
  return group;
}
CCMPI_MPI_ALIAS(MPI_Group_f2c)
extern "C" MPI_Fint PMPI_Info_c2f(MPI_Info info) {
  return info;
}
CCMPI_MPI_ALIAS(MPI_Info_c2f)
extern "C" MPI_Info PMPI_Info_f2c(MPI_Fint info) {
  return info;
}
CCMPI_MPI_ALIAS(MPI_Info_f2c)
extern "C" MPI_Fint PMPI_Message_c2f(MPI_Message message) {
  return message;
}
CCMPI_MPI_ALIAS(MPI_Message_c2f)
extern "C" MPI_Message PMPI_Message_f2c(MPI_Fint message) {
  return message;
}
CCMPI_MPI_ALIAS(MPI_Message_f2c)
extern "C" MPI_Fint PMPI_Op_c2f(MPI_Op op) {
  return op;
}
CCMPI_MPI_ALIAS(MPI_Op_c2f)
extern "C" MPI_Op PMPI_Op_f2c(MPI_Fint op) {
  return op;
}
CCMPI_MPI_ALIAS(MPI_Op_f2c)
extern "C" MPI_Fint PMPI_Request_c2f(MPI_Request request) {
  return request;
}
CCMPI_MPI_ALIAS(MPI_Request_c2f)
extern "C" MPI_Request PMPI_Request_f2c(MPI_Fint request) {
  return request;
}
CCMPI_MPI_ALIAS(MPI_Request_f2c)
extern "C" MPI_Fint PMPI_Type_c2f(MPI_Datatype datatype) {
  return datatype;
}
CCMPI_MPI_ALIAS(MPI_Type_c2f)
extern "C" MPI_Datatype PMPI_Type_f2c(MPI_Fint datatype) {
  return datatype;
}
CCMPI_MPI_ALIAS(MPI_Type_f2c)
extern "C" MPI_Fint PMPI_Win_c2f(MPI_Win win) {
  return win;
}
CCMPI_MPI_ALIAS(MPI_Win_c2f)
extern "C" MPI_Win PMPI_Win_f2c(MPI_Fint win) {
  return win;
}
CCMPI_MPI_ALIAS(MPI_Win_f2c)

extern "C" int PMPI_Status_c2f(const MPI_Status* c_status, MPI_Fint* f_status) {
  static constexpr const char* kFunc = "MPI_Status_c2f";
  if (badPointer(c_status) || badPointer(f_status))
    return ccmpi::api::raisef(kFunc, MPI_ERR_ARG,
                              "c_status and f_status must be real statuses (not NULL or "
                              "MPI_STATUS_IGNORE)");
  toFortran(*c_status, f_status);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Status_c2f)

extern "C" int PMPI_Status_f2c(const MPI_Fint* f_status, MPI_Status* c_status) {
  static constexpr const char* kFunc = "MPI_Status_f2c";
  if (badPointer(f_status) || badPointer(c_status))
    return ccmpi::api::raisef(kFunc, MPI_ERR_ARG,
                              "f_status and c_status must be real statuses (not NULL or "
                              "MPI_F_STATUS_IGNORE)");
  fromFortran(f_status, c_status);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Status_f2c)

extern "C" int PMPI_Status_c2f08(const MPI_Status* c_status, MPI_F08_status* f08_status) {
  static constexpr const char* kFunc = "MPI_Status_c2f08";
  if (badPointer(c_status) || badPointer(f08_status))
    return ccmpi::api::raisef(kFunc, MPI_ERR_ARG,
                              "c_status and f08_status must be real statuses (not NULL or "
                              "MPI_STATUS_IGNORE)");
  toF08(*c_status, f08_status);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Status_c2f08)

extern "C" int PMPI_Status_f082c(const MPI_F08_status* f08_status, MPI_Status* c_status) {
  static constexpr const char* kFunc = "MPI_Status_f082c";
  if (badPointer(f08_status) || badPointer(c_status))
    return ccmpi::api::raisef(kFunc, MPI_ERR_ARG,
                              "f08_status and c_status must be real statuses (not NULL or "
                              "MPI_F08_STATUS_IGNORE)");
  fromF08(*f08_status, c_status);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Status_f082c)

// Stands for "no conversion" in MPI_Register_datarep; it converts nothing if called.
extern "C" int MPI_CONVERSION_FN_NULL(void*, MPI_Datatype, int, void*, MPI_Offset, void*) {
  return MPI_SUCCESS;
}

// MPI-4.0: between the two Fortran forms directly (the same fields in the same order).
extern "C" int PMPI_Status_f082f(const MPI_F08_status* f08_status, MPI_Fint* f_status) {
  static constexpr const char* kFunc = "MPI_Status_f082f";
  if (badPointer(f08_status) || badPointer(f_status))
    return ccmpi::api::raisef(kFunc, MPI_ERR_ARG,
                              "f08_status and f_status must be real statuses (not NULL or "
                              "MPI_F08_STATUS_IGNORE/MPI_F_STATUS_IGNORE)");
  MPI_Status c;
  fromF08(*f08_status, &c);
  toFortran(c, f_status);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Status_f082f)

extern "C" int PMPI_Status_f2f08(const MPI_Fint* f_status, MPI_F08_status* f08_status) {
  static constexpr const char* kFunc = "MPI_Status_f2f08";
  if (badPointer(f_status) || badPointer(f08_status))
    return ccmpi::api::raisef(kFunc, MPI_ERR_ARG,
                              "f_status and f08_status must be real statuses (not NULL or "
                              "MPI_F_STATUS_IGNORE/MPI_F08_STATUS_IGNORE)");
  MPI_Status c;
  fromFortran(f_status, &c);
  toF08(c, f08_status);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Status_f2f08)
