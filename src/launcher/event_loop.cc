// poll(2)-based event loop and buffered non-blocking channels (see event_loop.h).
#include "launcher/event_loop.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <vector>

namespace ccmpi::launcher {

void EventLoop::watch(int fd, short events, FdHandler handler) {
  watches_[fd] = Watch{events, std::move(handler), nextGeneration_++};
}

void EventLoop::modify(int fd, short events) {
  auto it = watches_.find(fd);
  if (it != watches_.end()) it->second.events = events;
}

void EventLoop::unwatch(int fd) {
  watches_.erase(fd);
}

EventLoop::TimerId EventLoop::after(std::chrono::milliseconds delay, std::function<void()> fn) {
  TimerId id = nextTimer_++;
  timers_[id] = Timer{Clock::now() + delay, std::move(fn)};
  return id;
}

void EventLoop::cancel(TimerId id) {
  timers_.erase(id);
}

void EventLoop::runOnce() {
  std::vector<pollfd> fds;
  std::vector<std::uint64_t> generations;
  for (const auto& [fd, w] : watches_) {
    if (w.events == 0) continue;
    fds.push_back(pollfd{fd, w.events, 0});
    generations.push_back(w.generation);
  }
  int timeout = -1;
  if (!timers_.empty()) {
    auto next = Clock::now() + std::chrono::hours(1);
    for (const auto& [id, t] : timers_) next = std::min(next, t.when);
    auto ms = std::chrono::ceil<std::chrono::milliseconds>(next - Clock::now()).count();
    timeout = ms < 0 ? 0 : static_cast<int>(std::min<long long>(ms, INT_MAX));
  }
  int n = ::poll(fds.data(), fds.size(), timeout);
  if (n < 0 && errno != EINTR) n = 0;

  // Timers due now, in order of deadline; each may add or cancel others.
  auto now = Clock::now();
  for (;;) {
    auto due = timers_.end();
    for (auto it = timers_.begin(); it != timers_.end(); ++it)
      if (it->second.when <= now && (due == timers_.end() || it->second.when < due->second.when))
        due = it;
    if (due == timers_.end()) break;
    auto fn = std::move(due->second.fn);
    timers_.erase(due);
    fn();
  }

  if (n <= 0) return;
  for (std::size_t i = 0; i < fds.size(); ++i) {
    if (fds[i].revents == 0) continue;
    auto it = watches_.find(fds[i].fd);
    // Skip descriptors unwatched (or closed and reused) by an earlier handler this round.
    if (it == watches_.end() || it->second.generation != generations[i]) continue;
    FdHandler handler = it->second.handler;  // the handler may unwatch itself
    handler(fds[i].revents);
  }
}

Channel::Channel(EventLoop& loop, int fd, bool readable, DataFn onData)
    : loop_(loop), fd_(fd), readable_(readable), onData_(std::move(onData)) {
  fcntl(fd_, F_SETFL, fcntl(fd_, F_GETFL) | O_NONBLOCK);
  fcntl(fd_, F_SETFD, FD_CLOEXEC);
  loop_.watch(fd_, 0, [this](short revents) { onEvents(revents); });
  update();
}

Channel::~Channel() {
  close();
}

void Channel::close() {
  if (fd_ < 0) return;
  loop_.unwatch(fd_);
  ::close(fd_);
  fd_ = -1;
  out_.clear();
}

void Channel::update() {
  if (fd_ < 0) return;
  short events = 0;
  if (readable_ && !eof_ && !paused_) events |= POLLIN;
  if (!out_.empty() && !writeFailed_) events |= POLLOUT;
  loop_.modify(fd_, events);
}

void Channel::send(std::string_view data) {
  if (fd_ < 0 || writeFailed_ || closeWhenFlushed_) return;
  out_.append(data);
  flush();
}

void Channel::flush() {
  while (!out_.empty() && !writeFailed_) {
    ssize_t n = ::write(fd_, out_.data(), out_.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      writeFailed_ = true;
      out_.clear();
      break;
    }
    out_.erase(0, static_cast<std::size_t>(n));
  }
  if (out_.empty() && closeWhenFlushed_ && !readable_) {
    close();
    return;
  }
  update();
}

void Channel::closeAfterFlush() {
  closeWhenFlushed_ = true;
  flush();
}

void Channel::pauseReading(bool paused) {
  paused_ = paused;
  update();
}

bool Channel::readOnce() {
  char buf[65536];
  ssize_t n = ::read(fd_, buf, sizeof buf);
  if (n < 0) {
    if (errno == EINTR) return true;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return false;
    n = 0;  // treat read errors (ECONNRESET) as EOF
  }
  if (n == 0) {
    eof_ = true;
    update();
    if (onData_) onData_(nullptr, 0);
    return false;
  }
  if (onData_) onData_(buf, static_cast<std::size_t>(n));
  return true;
}

void Channel::drainNow() {
  while (fd_ >= 0 && readable_ && !eof_ && readOnce()) {
  }
}

void Channel::onEvents(short revents) {
  if (fd_ < 0) return;
  if ((revents & POLLOUT) || ((revents & (POLLERR | POLLHUP)) && !out_.empty())) flush();
  if (fd_ < 0) return;
  if (readable_ && !eof_ && !paused_ && (revents & (POLLIN | POLLHUP | POLLERR))) readOnce();
  if (fd_ >= 0 && !readable_ && (revents & (POLLERR | POLLHUP)) && out_.empty()) {
    // A write-only descriptor whose reader is gone: nothing more to do with it.
    writeFailed_ = true;
    update();
  }
}

void Channel::flushBlocking(std::chrono::milliseconds timeout) {
  auto deadline = EventLoop::Clock::now() + timeout;
  while (fd_ >= 0 && !out_.empty() && !writeFailed_) {
    flush();
    if (out_.empty() || writeFailed_) break;
    auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - EventLoop::Clock::now());
    if (left.count() <= 0) break;
    pollfd p{fd_, POLLOUT, 0};
    ::poll(&p, 1, static_cast<int>(left.count()));
  }
}

void writeAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        pollfd p{fd, POLLOUT, 0};
        ::poll(&p, 1, 1000);
        continue;
      }
      return;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

}  // namespace ccmpi::launcher
