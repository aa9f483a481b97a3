// zstd, shuffle-zstd and lz4: Debian's libzstd (level 1) and liblz4 (default) as message
// codecs, the general-purpose references the issue compares against (issue 27), usable
// on a channel like any other codec. shuffle-zstd first transposes the bytes of the
// words (all first bytes, then all second bytes, ...; 4-byte words for kFloat32), so the
// slowly varying sign/exponent bytes sit together. Payload: the library's output for the
// words (a zstd frame with its content size; an lz4 block). No state across messages.
// Left out of the codec table when the library was not found at build time.
#include <memory>

#include "compress/codec_list.h"
#include "compress/lz_backend.h"

namespace ccmpi::compress {
namespace {

class LzState final : public CodecState {
 public:
  explicit LzState(const Codec* c) : CodecState(c) {}
  void resetModel() override {}
  LzBackend lz;
};

enum class Kind { kZstd, kShuffleZstd, kLz4 };

template <Kind K>
class LzCodec final : public Codec {
 public:
  uint8_t id() const override {
    return K == Kind::kZstd ? kIdZstd : K == Kind::kShuffleZstd ? kIdShuffleZstd : kIdLz4;
  }
  const char* name() const override {
    return K == Kind::kZstd ? "zstd" : K == Kind::kShuffleZstd ? "shuffle-zstd" : "lz4";
  }
  const char* description() const override {
    return K == Kind::kZstd          ? "libzstd level 1 on the bytes"
           : K == Kind::kShuffleZstd ? "byte shuffle of the words, then libzstd level 1"
                                     : "liblz4 (default) on the bytes";
  }
  std::unique_ptr<CodecState> newState() const override { return std::make_unique<LzState>(this); }

 protected:
  bool supportsFloat32() const override { return K == Kind::kShuffleZstd; }
  size_t encode(CodecState& st, const uint8_t* in, size_t n, DataType type, uint8_t* out,
                size_t cap) const override {
    LzBackend& lz = static_cast<LzState&>(st).lz;
    const unsigned w = type == DataType::kFloat32 ? 4 : 8;
    if constexpr (K == Kind::kZstd) {
      return lz.zstd(in, n * w, out, cap);
    } else if constexpr (K == Kind::kShuffleZstd) {
      uint8_t* tmp = lz.scratch(n * w);
      LzBackend::shuffle(in, n, w, tmp);
      return lz.zstd(tmp, n * w, out, cap);
    } else {
      return lz.lz4(in, n * w, out, cap);
    }
  }
  int decode(CodecState& st, const uint8_t* in, size_t len, DataType type, uint8_t* out,
             size_t n) const override {
    LzBackend& lz = static_cast<LzState&>(st).lz;
    const unsigned w = type == DataType::kFloat32 ? 4 : 8;
    bool ok;
    if constexpr (K == Kind::kZstd) {
      ok = lz.unzstd(in, len, out, n * w);
    } else if constexpr (K == Kind::kShuffleZstd) {
      uint8_t* tmp = lz.scratch(n * w);
      ok = lz.unzstd(in, len, tmp, n * w);
      if (ok) LzBackend::unshuffle(tmp, n, w, out);
    } else {
      ok = lz.unlz4(in, len, out, n * w);
    }
    return ok ? kOk : corrupt(st, K == Kind::kLz4 ? "lz4: corrupt block" : "zstd: corrupt frame");
  }
  void train(CodecState&, const uint8_t*, size_t, DataType) const override {}
};

}  // namespace

const Codec* zstdCodec() {
  static const LzCodec<Kind::kZstd> codec;
  return haveZstd() ? &codec : nullptr;
}
const Codec* shuffleZstdCodec() {
  static const LzCodec<Kind::kShuffleZstd> codec;
  return haveZstd() ? &codec : nullptr;
}
const Codec* lz4Codec() {
  static const LzCodec<Kind::kLz4> codec;
  return haveLz4() ? &codec : nullptr;
}

}  // namespace ccmpi::compress
