// MPI-IO data access: the view mapping, independent access and two-phase collective
// access.
//
// An access first brings the memory data into one contiguous stream in the file's data
// representation (the user's buffer itself when the memory type is contiguous and the
// representation native; else packed, or converted to external32). The view maps stream
// bytes to file segments (mapView). Independent access issues one pread/pwrite per
// segment; a read of many segments close together reads their whole span once and picks
// the segments out of it (data sieving, bounded by the ind_rd_buffer_size hint).
//
// Collective access (ROMIO's two-phase I/O): the processes exchange the ranges they touch
// (one allgather). If the ranges are interleaved or any process has more than one segment
// (and the romio_cb_read/romio_cb_write hint is not "disable"), cb_nodes aggregators each
// own an equal contiguous part of [lowest, highest offset), processed in windows of
// cb_buffer_size bytes: in each round the processes send each aggregator the (offset,
// length) of their pieces inside its window and, for a write, the data (alltoallv); the
// aggregator writes its window's extent with one pwrite (reading it first when the pieces
// leave holes: read-modify-write), or for a read, reads it with one pread and sends every
// process its pieces back. Otherwise each process accesses its own range independently.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>

#include "api/file_impl.h"
#include "base/error.h"
#include "coll/coll.h"

namespace ccmpi::io {
namespace {

constexpr int64_t kDefaultCbBuffer = 16 << 20;
constexpr int64_t kDefaultSieveBuffer = 4 << 20;

// The data of an access in the file's representation.
struct Staged {
  std::vector<unsigned char> tmp;
  unsigned char* p = nullptr;
  int64_t bytes = 0;
};

int stage(const File& f, void* buf, int64_t count, MPI_Datatype type, bool write, Staged* s) {
  datatype::Datatype* dt = datatype::lookup(type);
  if (!dt) return setErrorCause(MPI_ERR_TYPE, "invalid datatype");
  if (f.userRep) {
    if (int rc = streamBytes(f, type, count, &s->bytes)) return rc;
    s->tmp.resize(static_cast<size_t>(s->bytes));
    s->p = s->tmp.data();
    if (write) return datarepToFile(*f.userRep, buf, type, count, s->tmp.data());
    return MPI_SUCCESS;
  }
  if (f.external32) {
    if (int rc = datatype::externalSize(type, count, &s->bytes)) return rc;
    s->tmp.resize(static_cast<size_t>(s->bytes));
    s->p = s->tmp.data();
    if (write && s->bytes > 0) {
      int64_t pos = 0;
      if (int rc = datatype::packExternal(type, buf, count, s->tmp.data(), s->bytes, &pos))
        return rc;
    }
    return MPI_SUCCESS;
  }
  s->bytes = count * dt->size();
  if (dt->contiguous()) {
    s->p = static_cast<unsigned char*>(buf) + dt->trueLb();
    return MPI_SUCCESS;
  }
  s->tmp.resize(static_cast<size_t>(s->bytes));
  s->p = s->tmp.data();
  if (write && s->bytes > 0) dt->pack(buf, count, 0, s->tmp.data(), static_cast<size_t>(s->bytes));
  return MPI_SUCCESS;
}

// After a read of `got` stream bytes: moves them into the user's buffer; *done is the
// number of memory bytes filled.
int finishRead(const File& f, void* buf, int64_t count, MPI_Datatype type, Staged& s, int64_t got,
               int64_t* done) {
  datatype::Datatype* dt = datatype::lookup(type);
  if (f.userRep) {
    // Whole elements only: a conversion function converts whole typemap items.
    int64_t one = 0;
    if (int rc = streamBytes(f, type, 1, &one)) return rc;
    const int64_t n = one > 0 ? std::min(count, got / one) : count;
    *done = n * dt->size();
    return datarepFromFile(*f.userRep, buf, type, n, s.tmp.data());
  }
  if (f.external32) {
    int64_t one = 0;
    if (int rc = datatype::externalSize(type, 1, &one)) return rc;
    const int64_t n = one > 0 ? std::min(count, got / one) : 0;
    int64_t pos = 0;
    if (n > 0)
      if (int rc = datatype::unpackExternal(type, s.tmp.data(), n * one, &pos, buf, n)) return rc;
    *done = n * dt->size();
    return MPI_SUCCESS;
  }
  if (!s.tmp.empty() && got > 0) dt->unpack(buf, count, 0, s.tmp.data(), static_cast<size_t>(got));
  *done = got;
  return MPI_SUCCESS;
}

}  // namespace

int streamBytes(const File& f, MPI_Datatype type, int64_t count, int64_t* bytes) {
  if (f.userRep) {
    int64_t one = 0;
    if (int rc = datarepFileSize(*f.userRep, type, &one)) return rc;
    *bytes = count * one;
    return MPI_SUCCESS;
  }
  if (f.external32) return datatype::externalSize(type, count, bytes);
  *bytes = count * datatype::lookup(type)->size();
  return MPI_SUCCESS;
}

namespace {

int ioError(const char* what, int err) {
  return setErrorCause(errnoClass(err), "%s: %s", what, strerror(err));
}

// pwrite/pread of all n bytes (pread stops at the end of the file: *got is what it read).
int pwriteFull(int fd, const unsigned char* p, int64_t n, int64_t off) {
  while (n > 0) {
    const ssize_t w = pwrite(fd, p, static_cast<size_t>(std::min<int64_t>(n, 1 << 30)), off);
    if (w < 0) {
      if (errno == EINTR) continue;
      return ioError("pwrite", errno);
    }
    p += w;
    n -= w;
    off += w;
  }
  return MPI_SUCCESS;
}

int preadFull(int fd, unsigned char* p, int64_t n, int64_t off, int64_t* got) {
  *got = 0;
  while (n > 0) {
    const ssize_t r = pread(fd, p, static_cast<size_t>(std::min<int64_t>(n, 1 << 30)), off);
    if (r < 0) {
      if (errno == EINTR) continue;
      return ioError("pread", errno);
    }
    if (r == 0) break;
    p += r;
    n -= r;
    off += r;
    *got += r;
  }
  return MPI_SUCCESS;
}

// Stream bytes of segs that lie before file byte `end` (segments in stream order).
int64_t bytesBefore(const std::vector<Segment>& segs, int64_t end) {
  int64_t got = 0;
  for (const Segment& s : segs) {
    const int64_t avail = std::clamp<int64_t>(end - s.off, 0, s.len);
    got += avail;
    if (avail < s.len) break;
  }
  return got;
}

// fcntl byte-range lock over the access (atomic mode).
class RangeLock {
 public:
  RangeLock(const File& f, const std::vector<Segment>& segs, bool write) : fd_(f.fd) {
    if (!f.atomic || segs.empty()) return;
    int64_t lo = INT64_MAX, hi = 0;
    for (const Segment& s : segs) {
      lo = std::min(lo, s.off);
      hi = std::max(hi, s.off + s.len);
    }
    lk_.l_type = write ? F_WRLCK : F_RDLCK;
    lk_.l_whence = SEEK_SET;
    lk_.l_start = lo;
    lk_.l_len = hi - lo;
    while (fcntl(fd_, F_SETLKW, &lk_) < 0 && errno == EINTR) {
    }
    locked_ = true;
  }
  ~RangeLock() {
    if (!locked_) return;
    lk_.l_type = F_UNLCK;
    fcntl(fd_, F_SETLK, &lk_);
  }
  RangeLock(const RangeLock&) = delete;
  RangeLock& operator=(const RangeLock&) = delete;

 private:
  int fd_;
  struct flock lk_ = {};
  bool locked_ = false;
};

int accessSegments(File& f, Staged& s, const std::vector<Segment>& segs, bool write, int64_t* got) {
  *got = 0;
  RangeLock lock(f, segs, write);
  if (write) {
    for (const Segment& g : segs)
      if (int rc = pwriteFull(f.fd, s.p + g.soff, g.len, g.off)) return rc;
    *got = s.bytes;
    return MPI_SUCCESS;
  }
  if (segs.size() > 1) {
    const int64_t lo = segs.front().off, hi = segs.back().off + segs.back().len;
    const int64_t span = hi - lo;
    if (hi > lo && span <= hintInt(f, "ind_rd_buffer_size", kDefaultSieveBuffer) &&
        span <= 8 * s.bytes + 65536 &&
        std::is_sorted(segs.begin(), segs.end(),
                       [](const Segment& a, const Segment& b) { return a.off < b.off; })) {
      std::vector<unsigned char> sieve(static_cast<size_t>(span));
      int64_t r = 0;
      if (int rc = preadFull(f.fd, sieve.data(), span, lo, &r)) return rc;
      for (const Segment& g : segs) {
        const int64_t avail = std::clamp<int64_t>(lo + r - g.off, 0, g.len);
        memcpy(s.p + g.soff, sieve.data() + (g.off - lo), static_cast<size_t>(avail));
      }
      *got = bytesBefore(segs, lo + r);
      return MPI_SUCCESS;
    }
  }
  for (const Segment& g : segs) {
    int64_t r = 0;
    if (int rc = preadFull(f.fd, s.p + g.soff, g.len, g.off, &r)) return rc;
    *got += r;
    if (r < g.len) break;
  }
  return MPI_SUCCESS;
}

struct Piece {
  int64_t off;
  int64_t len;
  int64_t soff;
};

// The two-phase exchange (see the file comment). Returns this process's error class.
int twoPhase(File& f, Staged& s, const std::vector<Segment>& segs, bool write, int64_t glo,
             int64_t ghi) {
  comm::Comm& c = *f.c;
  const int size = c.size, me = c.rank;
  const int naggr = static_cast<int>(std::clamp<int64_t>(hintInt(f, "cb_nodes", size), 1, size));
  const int64_t cb = std::max<int64_t>(hintInt(f, "cb_buffer_size", kDefaultCbBuffer), 1);
  const int64_t span = ghi - glo;
  const int64_t dom = (span + naggr - 1) / naggr;
  const int64_t rounds = (dom + cb - 1) / cb;
  auto aggrRank = [&](int k) { return static_cast<int>(int64_t{k} * size / naggr); };

  // My pieces by (round, aggregator).
  std::vector<std::vector<Piece>> buckets(static_cast<size_t>(rounds * naggr));
  for (const Segment& g : segs) {
    int64_t x = g.off;
    const int64_t end = g.off + g.len;
    while (x < end) {
      const int64_t rel = x - glo;
      const int64_t k = rel / dom;
      const int64_t r = (rel - k * dom) / cb;
      const int64_t we = std::min(glo + k * dom + (r + 1) * cb, glo + (k + 1) * dom);
      const int64_t n = std::min(end, we) - x;
      buckets[static_cast<size_t>(r * naggr + k)].push_back({x, n, g.soff + (x - g.off)});
      x += n;
    }
  }

  int rc = MPI_SUCCESS;
  int64_t eof = INT64_MAX;
  if (!write) {
    struct stat st;
    if (fstat(f.fd, &st) == 0) eof = st.st_size;
  }
  std::vector<int> scount(size), rcount(size), sdisp(size), rdisp(size);
  std::vector<int> sdata(size), rdata(size), sddisp(size), rddisp(size);
  std::vector<int64_t> sendHdr, recvHdr;
  std::vector<unsigned char> sendBuf, recvBuf, window;
  auto prefixSum = [&](const std::vector<int>& cnt, std::vector<int>& disp) {
    int64_t t = 0;
    for (int p = 0; p < size; ++p) {
      disp[p] = static_cast<int>(t);
      t += cnt[p];
    }
    return t;
  };
  for (int64_t r = 0; r < rounds; ++r) {
    std::fill(scount.begin(), scount.end(), 0);
    std::fill(sdata.begin(), sdata.end(), 0);
    sendHdr.clear();
    for (int k = 0; k < naggr; ++k) {
      const auto& b = buckets[static_cast<size_t>(r * naggr + k)];
      scount[aggrRank(k)] = static_cast<int>(b.size() * 2 * sizeof(int64_t));
      for (const Piece& p : b) {
        sendHdr.push_back(p.off);
        sendHdr.push_back(p.len);
        sdata[aggrRank(k)] += static_cast<int>(p.len);
      }
    }
    if (int e = coll::alltoall(scount.data(), 1, MPI_INT, rcount.data(), 1, MPI_INT, c)) return e;
    prefixSum(scount, sdisp);
    const int64_t rtotal = prefixSum(rcount, rdisp);
    recvHdr.assign(static_cast<size_t>(rtotal / 8), 0);
    if (int e = coll::alltoallv(sendHdr.data(), scount.data(), sdisp.data(), MPI_BYTE,
                                recvHdr.data(), rcount.data(), rdisp.data(), MPI_BYTE, c))
      return e;
    // What each source sends (write) or receives (read) of data, from the headers.
    int64_t lo = INT64_MAX, hi = 0;
    for (int p = 0; p < size; ++p) {
      int64_t t = 0;
      for (int i = rdisp[p] / 8; i < (rdisp[p] + rcount[p]) / 8; i += 2) {
        t += recvHdr[static_cast<size_t>(i) + 1];
        lo = std::min(lo, recvHdr[static_cast<size_t>(i)]);
        hi = std::max(hi, recvHdr[static_cast<size_t>(i)] + recvHdr[static_cast<size_t>(i) + 1]);
      }
      rdata[p] = static_cast<int>(t);
    }
    const bool haveWindow = hi > lo;
    if (haveWindow) window.assign(static_cast<size_t>(hi - lo), 0);
    if (write) {
      sendBuf.clear();
      for (int k = 0; k < naggr; ++k)
        for (const Piece& p : buckets[static_cast<size_t>(r * naggr + k)])
          sendBuf.insert(sendBuf.end(), s.p + p.soff, s.p + p.soff + p.len);
      prefixSum(sdata, sddisp);
      recvBuf.resize(static_cast<size_t>(prefixSum(rdata, rddisp)));
      if (int e = coll::alltoallv(sendBuf.data(), sdata.data(), sddisp.data(), MPI_BYTE,
                                  recvBuf.data(), rdata.data(), rddisp.data(), MPI_BYTE, c))
        return e;
      if (haveWindow && rc == MPI_SUCCESS) {
        // Holes left by the pieces: read the window first (read-modify-write).
        std::vector<std::pair<int64_t, int64_t>> cover;
        for (size_t i = 0; i < recvHdr.size(); i += 2)
          cover.push_back({recvHdr[i], recvHdr[i + 1]});
        std::sort(cover.begin(), cover.end());
        int64_t reach = lo;
        bool holes = false;
        for (const auto& [o, l] : cover) {
          if (o > reach) holes = true;
          reach = std::max(reach, o + l);
        }
        if (holes) {
          int64_t got = 0;
          rc = preadFull(f.fd, window.data(), hi - lo, lo, &got);
        }
        const unsigned char* src = recvBuf.data();
        for (size_t i = 0; i < recvHdr.size(); i += 2) {
          memcpy(window.data() + (recvHdr[i] - lo), src, static_cast<size_t>(recvHdr[i + 1]));
          src += recvHdr[i + 1];
        }
        if (rc == MPI_SUCCESS) rc = pwriteFull(f.fd, window.data(), hi - lo, lo);
      }
    } else {
      if (haveWindow && rc == MPI_SUCCESS) {
        int64_t got = 0;
        rc = preadFull(f.fd, window.data(), hi - lo, lo, &got);
      }
      sendBuf.clear();
      for (size_t i = 0; i < recvHdr.size(); i += 2)
        sendBuf.insert(sendBuf.end(), window.data() + (recvHdr[i] - lo),
                       window.data() + (recvHdr[i] - lo + recvHdr[i + 1]));
      prefixSum(rdata, rddisp);
      recvBuf.resize(static_cast<size_t>(prefixSum(sdata, sddisp)));
      if (int e = coll::alltoallv(sendBuf.data(), rdata.data(), rddisp.data(), MPI_BYTE,
                                  recvBuf.data(), sdata.data(), sddisp.data(), MPI_BYTE, c))
        return e;
      // Bytes past the end of the file are left as they are in the user's buffer.
      const unsigned char* src = recvBuf.data();
      for (int k = 0; k < naggr; ++k)
        for (const Piece& p : buckets[static_cast<size_t>(r * naggr + k)]) {
          memcpy(s.p + p.soff, src,
                 static_cast<size_t>(std::clamp<int64_t>(eof - p.off, 0, p.len)));
          src += p.len;
        }
    }
  }
  (void)me;
  return rc;
}

}  // namespace

int errnoClass(int err) {
  switch (err) {
    case ENOENT:
    case ENOTDIR:
      return MPI_ERR_NO_SUCH_FILE;
    case EACCES:
    case EPERM:
    case EBADF:
      return MPI_ERR_ACCESS;
    case EEXIST:
      return MPI_ERR_FILE_EXISTS;
    case EROFS:
      return MPI_ERR_READ_ONLY;
    case ENOSPC:
    case EFBIG:
      return MPI_ERR_NO_SPACE;
    case EDQUOT:
      return MPI_ERR_QUOTA;
    case ENAMETOOLONG:
    case EISDIR:
    case ELOOP:
      return MPI_ERR_BAD_FILE;
    case ETXTBSY:
      return MPI_ERR_FILE_IN_USE;
    default:
      return MPI_ERR_IO;
  }
}

void mapView(const File& f, int64_t v, int64_t len, std::vector<Segment>* out) {
  out->clear();
  if (len <= 0 || f.ftSize <= 0 || f.blocks.empty()) return;
  if (f.ftContig) {
    out->push_back({f.disp + f.blocks[0].disp + v, len, 0});
    return;
  }
  const int64_t S = f.ftSize, E = f.ftExtent;
  int64_t t = v / S, w = v % S;
  size_t i = static_cast<size_t>(std::upper_bound(f.prefix.begin(), f.prefix.end(), w) -
                                 f.prefix.begin() - 1);
  int64_t soff = 0;
  while (len > 0) {
    const datatype::Block& b = f.blocks[i];
    const int64_t in = w - f.prefix[i];
    const int64_t n = std::min(len, b.len - in);
    const int64_t off = f.disp + t * E + b.disp + in;
    if (!out->empty() && out->back().off + out->back().len == off)
      out->back().len += n;
    else
      out->push_back({off, n, soff});
    soff += n;
    len -= n;
    w += n;
    if (n == b.len - in && ++i == f.blocks.size()) {
      i = 0;  // next filetype element
      ++t;
      w = 0;
    }
  }
}

int64_t viewByteOffset(const File& f, int64_t v) {
  std::vector<Segment> segs;
  mapView(f, v, 1, &segs);
  return segs.empty() ? f.disp : segs[0].off;
}

int64_t streamBytesBefore(const File& f, int64_t size) {
  if (size <= f.disp || f.ftExtent <= 0) return 0;
  const int64_t rel = size - f.disp;
  const int64_t t = rel / f.ftExtent, r = rel % f.ftExtent;
  int64_t bytes = t * f.ftSize;
  for (const datatype::Block& b : f.blocks) bytes += std::clamp<int64_t>(r - b.disp, 0, b.len);
  return bytes;
}

int independentAccess(File& f, int64_t v, void* buf, int64_t count, MPI_Datatype type, bool write,
                      int64_t* done) {
  *done = 0;
  Staged s;
  if (int rc = stage(f, buf, count, type, write, &s)) return rc;
  if (s.bytes == 0) return MPI_SUCCESS;
  std::vector<Segment> segs;
  mapView(f, v, s.bytes, &segs);
  int64_t got = 0;
  if (int rc = accessSegments(f, s, segs, write, &got)) return rc;
  if (write) {
    *done = count * datatype::lookup(type)->size();
    return MPI_SUCCESS;
  }
  return finishRead(f, buf, count, type, s, got, done);
}

int collectiveAccess(File& f, int64_t v, void* buf, int64_t count, MPI_Datatype type, bool write,
                     int64_t* done) {
  *done = 0;
  comm::Comm& c = *f.c;
  Staged s;
  int rc = stage(f, buf, count, type, write, &s);
  if (rc) s.bytes = 0;  // still take part in the collective exchange
  std::vector<Segment> segs;
  mapView(f, v, s.bytes, &segs);
  int64_t mine[3] = {INT64_MAX, INT64_MIN, static_cast<int64_t>(segs.size())};
  for (const Segment& g : segs) {
    mine[0] = std::min(mine[0], g.off);
    mine[1] = std::max(mine[1], g.off + g.len);
  }
  std::vector<int64_t> all(static_cast<size_t>(3 * c.size));
  if (int e = coll::allgather(mine, 3, MPI_INT64_T, all.data(), 3, MPI_INT64_T, c)) return e;
  int64_t glo = INT64_MAX, ghi = INT64_MIN;
  bool interleaved = false;
  std::vector<std::pair<int64_t, int64_t>> ranges;
  for (int p = 0; p < c.size; ++p) {
    const int64_t* a = &all[static_cast<size_t>(3 * p)];
    if (a[2] == 0) continue;
    glo = std::min(glo, a[0]);
    ghi = std::max(ghi, a[1]);
    if (a[2] > 1) interleaved = true;
    ranges.push_back({a[0], a[1]});
  }
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i)
    if (ranges[i].first < ranges[i - 1].second) interleaved = true;
  const std::string mode = hintStr(f, write ? "romio_cb_write" : "romio_cb_read", "automatic");
  const bool use2p =
      ghi > glo && c.size > 1 && (mode == "enable" || (mode != "disable" && interleaved));
  int64_t got = 0;
  if (!use2p) {
    if (rc) return rc;
    rc = accessSegments(f, s, segs, write, &got);
  } else {
    const int e = twoPhase(f, s, segs, write, glo, ghi);
    if (!rc) rc = e;
    int grc = MPI_SUCCESS;
    if (int e2 = coll::allreduce(&rc, &grc, 1, MPI_INT, MPI_MAX, c)) return e2;
    if (!rc && grc)
      rc = setErrorCause(grc, "the I/O of another process of the collective access failed");
    if (rc) return rc;
    if (write) {
      got = s.bytes;
    } else {
      struct stat st;
      got = fstat(f.fd, &st) == 0 ? bytesBefore(segs, st.st_size) : s.bytes;
    }
  }
  if (rc) return rc;
  if (write) {
    *done = count * datatype::lookup(type)->size();
    return MPI_SUCCESS;
  }
  return finishRead(f, buf, count, type, s, got, done);
}

}  // namespace ccmpi::io
