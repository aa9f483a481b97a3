#pragma once
// The launcher's single-threaded event loop (mpirun and its proxies): poll(2) over a
// small set of descriptors plus one-shot timers. Nothing spins: runOnce() sleeps in
// poll() until a descriptor is ready or the earliest timer is due. Signals arrive through
// a signalfd that the owner watches like any other descriptor.
//
// Channel wraps one descriptor that is read (callback per chunk, n == 0 at EOF) and/or
// written (queued, flushed on POLLOUT, never blocking the loop).
#include <poll.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

namespace ccmpi::launcher {

class EventLoop {
 public:
  using FdHandler = std::function<void(short revents)>;
  using TimerId = std::uint64_t;
  using Clock = std::chrono::steady_clock;

  // Calls `handler` when poll() reports `events` (or an error/hangup) on fd. A descriptor
  // with events == 0 is not polled at all.
  void watch(int fd, short events, FdHandler handler);
  void modify(int fd, short events);
  void unwatch(int fd);

  TimerId after(std::chrono::milliseconds delay, std::function<void()> fn);
  void cancel(TimerId id);

  // Waits for and dispatches one round of events (expired timers first).
  void runOnce();

 private:
  struct Watch {
    short events;
    FdHandler handler;
    std::uint64_t generation;
  };
  struct Timer {
    Clock::time_point when;
    std::function<void()> fn;
  };
  std::map<int, Watch> watches_;
  std::map<TimerId, Timer> timers_;
  std::uint64_t nextGeneration_ = 1;
  TimerId nextTimer_ = 1;
};

class Channel {
 public:
  using DataFn = std::function<void(const char* data, std::size_t n)>;

  // Takes ownership of fd (made non-blocking and close-on-exec).
  Channel(EventLoop& loop, int fd, bool readable, DataFn onData);
  ~Channel();
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  int fd() const { return fd_; }
  bool closed() const { return fd_ < 0; }
  bool readEof() const { return eof_; }
  std::size_t pending() const { return out_.size(); }

  // Queues data; silently dropped once the peer is gone (write error).
  void send(std::string_view data);
  void pauseReading(bool paused);
  // Reads whatever is available right now, without blocking (used when a child has
  // exited, so its last words are handled before its exit status).
  void drainNow();
  // Writes out the queue, waiting at most `timeout` (used just before a process exits).
  void flushBlocking(std::chrono::milliseconds timeout);
  // Closes the descriptor (pending output is dropped).
  void close();
  // Closes only our write direction once the queue is flushed (stdin of a rank).
  void closeAfterFlush();

 private:
  void onEvents(short revents);
  bool readOnce();
  void flush();
  void update();

  EventLoop& loop_;
  int fd_;
  bool readable_;
  bool paused_ = false;
  bool eof_ = false;
  bool writeFailed_ = false;
  bool closeWhenFlushed_ = false;
  DataFn onData_;
  std::string out_;
};

// write(2) everything, retrying on EINTR and waiting in poll() on EAGAIN. Errors other
// than that are ignored (a closed stdout must not stop the launcher).
void writeAll(int fd, std::string_view data);

}  // namespace ccmpi::launcher
