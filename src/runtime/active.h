#pragma once
// Whether MPI may be used, asked by every MPI call: one load, inlined at the call.

namespace ccmpi::runtime {

namespace detail {
// Kept by runtime.cc whenever the infrastructure comes up or down or gains or loses a
// user (the world model, a session).
extern bool gActive;
}  // namespace detail

// MPI may be used: the world model is initialized and not finalized, or a session is live.
inline bool active() {
  return detail::gActive;
}

}  // namespace ccmpi::runtime
