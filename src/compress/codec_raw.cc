// raw: stores every message as is (header + bytes). The baseline for the benchmarks and
// what a channel uses when compression is off.
#include "compress/codec_list.h"

namespace ccmpi::compress {
namespace {

class RawState final : public CodecState {
 public:
  explicit RawState(const Codec* c) : CodecState(c) {}
  void resetModel() override {}
};

class RawCodec final : public Codec {
 public:
  uint8_t id() const override { return kIdRaw; }
  const char* name() const override { return "raw"; }
  const char* description() const override { return "no compression (header + bytes)"; }
  std::unique_ptr<CodecState> newState() const override { return std::make_unique<RawState>(this); }

 protected:
  size_t encode(CodecState&, const uint8_t*, size_t, DataType, uint8_t*, size_t) const override {
    return 0;
  }
  int decode(CodecState& st, const uint8_t*, size_t, DataType, uint8_t*, size_t) const override {
    return corrupt(st, "raw: coded payload in a raw-only codec");
  }
  void train(CodecState&, const uint8_t*, size_t, DataType) const override {}
};

}  // namespace

const Codec& rawCodec() {
  static const RawCodec codec;
  return codec;
}

}  // namespace ccmpi::compress
