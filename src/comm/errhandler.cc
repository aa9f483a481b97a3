// Error handler objects: the predefined MPI_ERRORS_ARE_FATAL / RETURN / ABORT and user
// communicator and session handlers, reference counted (the user's handle plus every communicator
// that has the handler set).
#include "comm/errhandler.h"

#include "base/handles.h"

namespace ccmpi::comm {
namespace {

HandleTable<Errhandler>& table() {
  static HandleTable<Errhandler> t(HandleKind::kErrhandler);
  return t;
}

void putPredefined(MPI_Errhandler h, Errhandler::Kind kind) {
  auto e = std::make_unique<Errhandler>();
  e->kind = kind;
  e->predefined = true;
  table().putAt(handleIndex(h), std::move(e));
}

// A user handler for windows, files or sessions (its function is called through otherFn).
MPI_Errhandler newOtherErrhandler(Errhandler::Kind kind, void* fn) {
  auto e = std::make_unique<Errhandler>();
  e->kind = kind;
  e->otherFn = fn;
  return table().add(std::move(e));
}

}  // namespace

Errhandler* lookupErrhandler(MPI_Errhandler h) {
  return table().get(h);
}

void initPredefinedErrhandlers() {
  if (table().get(MPI_ERRORS_ARE_FATAL)) return;
  putPredefined(MPI_ERRORS_ARE_FATAL, Errhandler::Kind::kFatal);
  putPredefined(MPI_ERRORS_RETURN, Errhandler::Kind::kReturn);
  putPredefined(MPI_ERRORS_ABORT, Errhandler::Kind::kAbort);
}

MPI_Errhandler newCommErrhandler(MPI_Comm_errhandler_function* fn) {
  auto e = std::make_unique<Errhandler>();
  e->kind = Errhandler::Kind::kUserComm;
  e->commFn = fn;
  return table().add(std::move(e));
}

MPI_Errhandler newSessionErrhandler(MPI_Session_errhandler_function* fn) {
  return newOtherErrhandler(Errhandler::Kind::kUserSession, reinterpret_cast<void*>(fn));
}

void retainErrhandler(MPI_Errhandler h) {
  Errhandler* e = table().get(h);
  if (e && !e->predefined) ++e->refs;
}

void releaseErrhandler(MPI_Errhandler h) {
  Errhandler* e = table().get(h);
  if (e && !e->predefined && --e->refs <= 0) table().remove(h);
}

size_t liveErrhandlers() {
  return table().liveDynamic();
}

MPI_Errhandler newFileErrhandler(MPI_File_errhandler_function* fn) {
  return newOtherErrhandler(Errhandler::Kind::kUserFile, reinterpret_cast<void*>(fn));
}

MPI_Errhandler newWinErrhandler(MPI_Win_errhandler_function* fn) {
  return newOtherErrhandler(Errhandler::Kind::kUserWin, reinterpret_cast<void*>(fn));
}

}  // namespace ccmpi::comm
