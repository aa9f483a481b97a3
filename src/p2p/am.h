#pragma once
// Active messages: a short message naming a handler, which runs on the receiving rank as
// soon as its progress engine sees the message, whatever MPI call the rank is in (any call
// that drives progress: a wait, a test, a probe, a blocking send or receive, a collective).
// No receive is posted and nothing is matched: the message goes straight to its handler.
//
// Rules for handlers (docs/active-messages.md): they run to completion inside the progress
// engine and must not block (no blocking MPI call, no wait on a request); they may send
// active messages (a reply), and those are queued and go out as the connection allows.
// A rank that computes without calling MPI runs no handler until its next call, unless the
// progress thread runs (api/async_progress.h: CCMPI_ASYNC_PROGRESS, or from the first RMA
// window on).
//
// Handlers are registered on a communicator; the source a handler sees is a rank of it. Ids
// are given in registration order, so every rank that takes part registers the same
// handlers in the same order (as one creates user ops); a message that arrives before its
// handler is registered here waits for the registration. Messages from one rank to another
// for one handler run in the order they were sent. The payload is copied when sent (the
// buffer is free on return) and is at most amMaxPayload() bytes.
#include <cstddef>
#include <cstdint>

#include "comm/comm.h"
#include "transport/frame.h"
#include "transport/transport.h"

namespace ccmpi::p2p {

// source: rank in the communicator the handler was registered on; word: the sender's word.
using AmHandler = void (*)(int source, uint64_t word, const void* payload, size_t len, void* state);

// An error class (MPI_ERR_OTHER when all kAmMaxHandlers ids are taken).
int amRegister(comm::Comm& c, AmHandler fn, void* state, int* id);
int amSend(const comm::Comm& c, int dest, int id, uint64_t word, const void* payload, size_t len);
size_t amMaxPayload();
// Handlers run so far on this rank (tests, statistics).
uint64_t amHandled();
// Drops every registration (MPI_Finalize).
void amShutdown();

// Library-internal handlers (collective algorithms): a fixed slot each, the same on every
// rank from the start, so no registration order is needed. The handler gets the context id
// of the communicator the message was sent on and the sender's world rank, and finds its
// own state from them; it must accept messages for a call it has not entered yet (a
// faster rank's) by keeping them. Messages to self go through the progress hook, as
// amSend's do.
enum class InternalAm : int { kDrsN = 0, kGenerateRecv = 1 };
using InternalAmHandler = void (*)(uint32_t context, int sourceWorld, uint64_t word,
                                   const void* payload, size_t len);
void amSetInternal(InternalAm slot, InternalAmHandler fn);
void amSendInternal(const comm::Comm& c, int dest, InternalAm slot, uint64_t word,
                    const void* payload, size_t len);

// Sends a kAm frame with a copy of the payload (p2p.cc).
void sendActiveMessage(int peerWorld, uint32_t context, int handler, uint64_t word,
                       const void* payload, size_t len);
// The transport sink's side (p2p.cc): a kAm frame arrived / its payload is in.
int amFrame(int peer, const transport::FrameHeader& h, transport::PayloadTarget* t);
void amPayload(int peer, const transport::FrameHeader& h, const transport::PayloadTarget& t);

}  // namespace ccmpi::p2p
