// libFuzzer body shared by the codec targets (codec_<name>_fuzz.cc defines
// CCMPI_FUZZ_CODEC). Each input is used three ways:
//   1. as a message: decoded with a fresh state (and once more with the state it left, to
//      exercise the broken-state path and warm predictors);
//   2. as data: compressed (8- and 4-byte words), decompressed with a fresh state, and
//      compared; a mismatch aborts;
//   3. the message from 2 with one bit flipped (position taken from the input): decoded,
//      which must fail or give the original data back.
// ASan/UBSan catch any out-of-bounds access or undefined behaviour in the decoders.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "compress/codec.h"
#include "compress/frame.h"

namespace {

using ccmpi::compress::Codec;
using ccmpi::compress::DataType;

const Codec& fuzzCodec() {
  static const Codec* c = ccmpi::compress::findCodec(CCMPI_FUZZ_CODEC);
  if (!c) std::abort();
  return *c;
}

// States are reused (reset) across inputs: cmpi's and fpc's tables are 512 KiB, and
// allocating them under ASan for every input would dominate the run.
ccmpi::compress::CodecState& freshState(int slot) {
  static std::unique_ptr<ccmpi::compress::CodecState> states[3];
  if (!states[slot]) states[slot] = fuzzCodec().newState();
  states[slot]->reset();
  return *states[slot];
}

void decodeAsMessage(const Codec& c, const uint8_t* data, size_t size) {
  ccmpi::compress::FrameHeader h;
  size_t cap = 1 << 16;
  if (ccmpi::compress::parseFrameHeader(data, size, &h) && h.length < (size_t{1} << 20)) {
    cap = static_cast<size_t>(h.length);
  }
  std::vector<uint8_t> out(cap);
  auto& st = freshState(0);
  size_t n = 0;
  for (int pass = 0; pass < 2; ++pass) {
    const int rc = c.decompress(st, data, size, out.data(), out.size(), &n);
    if (rc == ccmpi::compress::kOk && n > out.size()) std::abort();
  }
}

void roundTrip(const Codec& c, const uint8_t* data, size_t size, DataType type, uint32_t flip) {
  auto& enc = freshState(0);
  std::vector<uint8_t> msg(Codec::maxCompressedSize(size));
  size_t m = 0;
  if (c.compress(enc, data, size, msg.data(), msg.size(), &m, type) != 0) std::abort();
  if (m > size + ccmpi::compress::kMaxOverhead) std::abort();
  std::vector<uint8_t> back(size + 1);
  auto& dec = freshState(1);
  size_t n = 0;
  if (c.decompress(dec, msg.data(), m, back.data(), back.size(), &n) != 0) std::abort();
  if (n != size || (size && std::memcmp(back.data(), data, size) != 0)) std::abort();
  if (m == 0) return;
  msg[(flip / 8) % m] ^= static_cast<uint8_t>(1u << (flip % 8));
  auto& dec2 = freshState(2);
  if (c.decompress(dec2, msg.data(), m, back.data(), back.size(), &n) == 0) {
    if (n != size || (size && std::memcmp(back.data(), data, size) != 0)) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const Codec& c = fuzzCodec();
  decodeAsMessage(c, data, size);
  uint32_t flip = 0;
  for (size_t i = 0; i < size && i < 8; ++i) flip = flip * 131 + data[i];
  roundTrip(c, data, size, DataType::kFloat64, flip);
  roundTrip(c, data, size, DataType::kFloat32, flip * 7 + 3);
  return 0;
}
