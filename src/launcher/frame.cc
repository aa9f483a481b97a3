// Framing of the mpirun <-> proxy channel and LaunchSpec serialization (see frame.h).
// A LaunchSpec is a sequence of fields, each an i32 count or a length-prefixed string.
#include "launcher/frame.h"

namespace ccmpi::launcher {
namespace {

void putU32(std::string* out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

std::uint32_t getU32(const char* p) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i)
    v |= static_cast<std::uint32_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

class SpecWriter {
 public:
  void num(std::int64_t v) {
    putU32(&out_, static_cast<std::uint32_t>(static_cast<std::int32_t>(v)));
  }
  void str(std::string_view s) {
    putU32(&out_, static_cast<std::uint32_t>(s.size()));
    out_.append(s);
  }
  void list(const std::vector<std::string>& v) {
    num(static_cast<std::int64_t>(v.size()));
    for (const auto& s : v) str(s);
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class SpecReader {
 public:
  explicit SpecReader(std::string_view data) : data_(data) {}
  bool num(int* v) {
    if (data_.size() < 4) return false;
    *v = static_cast<std::int32_t>(getU32(data_.data()));
    data_.remove_prefix(4);
    return true;
  }
  bool str(std::string* s) {
    int n = 0;
    if (!num(&n) || n < 0 || static_cast<std::size_t>(n) > data_.size()) return false;
    s->assign(data_.substr(0, static_cast<std::size_t>(n)));
    data_.remove_prefix(static_cast<std::size_t>(n));
    return true;
  }
  bool list(std::vector<std::string>* v) {
    int n = 0;
    if (!num(&n) || n < 0 || static_cast<std::size_t>(n) > data_.size() / 4) return false;
    v->resize(static_cast<std::size_t>(n));
    for (auto& s : *v)
      if (!str(&s)) return false;
    return true;
  }
  bool done() const { return data_.empty(); }

 private:
  std::string_view data_;
};

constexpr int kSpecVersion = 1;

}  // namespace

void appendFrame(std::string* out, FrameType type, std::int32_t rank, std::string_view payload) {
  putU32(out, static_cast<std::uint32_t>(payload.size()));
  out->push_back(static_cast<char>(type));
  out->append(3, '\0');
  putU32(out, static_cast<std::uint32_t>(rank));
  out->append(payload);
}

std::string encodeInt(std::int32_t value) {
  std::string s;
  putU32(&s, static_cast<std::uint32_t>(value));
  return s;
}

bool decodeInt(std::string_view payload, std::int32_t* value) {
  if (payload.size() != 4) return false;
  *value = static_cast<std::int32_t>(getU32(payload.data()));
  return true;
}

FrameReader::Result FrameReader::next(Frame* frame, std::string* error) {
  if (waitingForMagic_) {
    std::size_t at = buffer_.find(kProxyMagic);
    if (at == std::string::npos) {
      if (buffer_.size() > 65536) {
        *error = "no proxy greeting in the first 64 KiB of output";
        return Result::kError;
      }
      return Result::kNeedMore;
    }
    buffer_.erase(0, at + kProxyMagic.size());
    waitingForMagic_ = false;
  }
  std::size_t avail = buffer_.size() - offset_;
  if (avail < kFrameHeader) {
    if (offset_ > 0) {
      buffer_.erase(0, offset_);
      offset_ = 0;
    }
    return Result::kNeedMore;
  }
  const char* h = buffer_.data() + offset_;
  std::uint32_t length = getU32(h);
  auto type = static_cast<std::uint8_t>(h[4]);
  if (length > kMaxFramePayload || type < 1 || type > 9 || h[5] || h[6] || h[7]) {
    *error = "corrupt frame header";
    return Result::kError;
  }
  if (avail < kFrameHeader + length) {
    if (offset_ > 0) {
      buffer_.erase(0, offset_);
      offset_ = 0;
    }
    return Result::kNeedMore;
  }
  frame->type = static_cast<FrameType>(type);
  frame->rank = static_cast<std::int32_t>(getU32(h + 8));
  frame->payload.assign(h + kFrameHeader, length);
  offset_ += kFrameHeader + length;
  if (offset_ == buffer_.size()) {
    buffer_.clear();
    offset_ = 0;
  }
  return Result::kFrame;
}

std::string encodeLaunchSpec(const LaunchSpec& spec) {
  SpecWriter w;
  w.num(kSpecVersion);
  w.str(spec.host);
  w.list(spec.argv);
  w.str(spec.cwd);
  w.list(spec.setEnv);
  w.list(spec.unsetEnv);
  w.num(spec.worldSize);
  w.num(static_cast<std::int64_t>(spec.ranks.size()));
  for (const auto& r : spec.ranks) {
    w.num(r.rank);
    w.num(r.localRank);
  }
  w.num(static_cast<int>(spec.rank0Stdin));
  return w.take();
}

bool decodeLaunchSpec(std::string_view data, LaunchSpec* spec, std::string* error) {
  SpecReader r(data);
  int version = 0, nranks = 0, stdinMode = 0;
  bool ok = r.num(&version) && version == kSpecVersion && r.str(&spec->host) &&
            r.list(&spec->argv) && r.str(&spec->cwd) && r.list(&spec->setEnv) &&
            r.list(&spec->unsetEnv) && r.num(&spec->worldSize) && r.num(&nranks) && nranks >= 0 &&
            static_cast<std::size_t>(nranks) <= data.size() / 8;
  if (ok) {
    spec->ranks.resize(static_cast<std::size_t>(nranks));
    for (auto& slot : spec->ranks) ok = ok && r.num(&slot.rank) && r.num(&slot.localRank);
  }
  ok = ok && r.num(&stdinMode) && stdinMode >= 0 && stdinMode <= 2 && r.done();
  if (!ok) {
    *error = version != kSpecVersion && version != 0
                 ? "launch description version " + std::to_string(version) +
                       " (mpirun and proxy binaries differ?)"
                 : "malformed launch description";
    return false;
  }
  spec->rank0Stdin = static_cast<StdinMode>(stdinMode);
  if (spec->argv.empty() || spec->worldSize < 1) {
    *error = "launch description without a program or ranks";
    return false;
  }
  for (const auto& slot : spec->ranks) {
    if (slot.rank < 0 || slot.rank >= spec->worldSize || slot.localRank < 0) {
      *error = "launch description with an invalid rank";
      return false;
    }
  }
  return true;
}

}  // namespace ccmpi::launcher
