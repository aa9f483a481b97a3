#pragma once
// Integer handles for MPI objects (as MPICH does, so Fortran can map them 1:1).
// A handle is (kind << 26) | index; index 0 is the kind's NULL handle and small
// indices are the predefined objects declared in mpi.h. A table owns its objects
// through unique_ptr; freed slots are reused.
#include <cstdint>
#include <memory>
#include <vector>

namespace ccmpi {

enum class HandleKind : int {
  kComm = 1,
  kGroup = 2,
  kDatatype = 3,
  kRequest = 4,
  kOp = 5,
  kErrhandler = 6,
  kInfo = 7,
  kMessage = 8,
  kWin = 9,
  kFile = 10,
  kSession = 11,
};

constexpr int kHandleKindShift = 26;
constexpr int kHandleIndexMask = (1 << kHandleKindShift) - 1;

constexpr int makeHandle(HandleKind kind, int index) {
  return (static_cast<int>(kind) << kHandleKindShift) | index;
}
constexpr HandleKind handleKind(int h) {
  return static_cast<HandleKind>((h >> kHandleKindShift) & 0xf);
}
constexpr int handleIndex(int h) {
  return h & kHandleIndexMask;
}

template <typename T>
class HandleTable {
 public:
  explicit HandleTable(HandleKind kind) : kind_(kind) { slots_.resize(1); }

  // Stores obj at a fixed index (predefined objects). Grows the table as needed.
  int putAt(int index, std::unique_ptr<T> obj) {
    if (static_cast<size_t>(index) >= slots_.size()) slots_.resize(index + 1);
    slots_[index] = std::move(obj);
    if (index >= firstDynamic_) firstDynamic_ = index + 1;
    return makeHandle(kind_, index);
  }
  // Reserves indices [0, n) for predefined objects; add() never returns them.
  void reservePredefined(int n) {
    if (n > firstDynamic_) firstDynamic_ = n;
    if (static_cast<size_t>(n) > slots_.size()) slots_.resize(n);
  }
  int add(std::unique_ptr<T> obj) {
    int index;
    if (!free_.empty()) {
      index = free_.back();
      free_.pop_back();
      slots_[index] = std::move(obj);
    } else {
      if (slots_.size() < static_cast<size_t>(firstDynamic_)) slots_.resize(firstDynamic_);
      index = static_cast<int>(slots_.size());
      slots_.push_back(std::move(obj));
    }
    return makeHandle(kind_, index);
  }
  // nullptr for a handle of another kind, the NULL handle, or a freed/unknown index.
  T* get(int h) const {
    if (handleKind(h) != kind_) return nullptr;
    const int i = handleIndex(h);
    if (i <= 0 || static_cast<size_t>(i) >= slots_.size()) return nullptr;
    return slots_[i].get();
  }
  void remove(int h) {
    const int i = handleIndex(h);
    if (handleKind(h) != kind_ || i < firstDynamic_ || static_cast<size_t>(i) >= slots_.size() ||
        !slots_[i])
      return;
    slots_[i].reset();
    free_.push_back(i);
  }
  bool isPredefined(int h) const { return handleIndex(h) > 0 && handleIndex(h) < firstDynamic_; }
  HandleKind kind() const { return kind_; }
  int nullHandle() const { return makeHandle(kind_, 0); }
  // Number of live dynamic objects (leak checks in tests).
  size_t liveDynamic() const {
    size_t n = 0;
    for (size_t i = firstDynamic_; i < slots_.size(); ++i) n += slots_[i] != nullptr;
    return n;
  }
  template <typename F>
  void forEach(F&& f) const {
    for (size_t i = 1; i < slots_.size(); ++i)
      if (slots_[i]) f(makeHandle(kind_, static_cast<int>(i)), *slots_[i]);
  }

 private:
  HandleKind kind_;
  int firstDynamic_ = 1;
  std::vector<std::unique_ptr<T>> slots_;
  std::vector<int> free_;
};

}  // namespace ccmpi
