#pragma once
// Thin wrapper over Debian's libzstd and liblz4 (optional at build time), and the byte
// shuffle, for the general-purpose codecs (codec_lz.cc) and adapt's LZ paths
// (codec_adapt.cc). One LzBackend per codec state (it owns the zstd contexts and the
// shuffle scratch); not shared between threads.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ccmpi::compress {

bool haveZstd();
bool haveLz4();

class LzBackend {
 public:
  LzBackend();
  ~LzBackend();
  LzBackend(const LzBackend&) = delete;
  LzBackend& operator=(const LzBackend&) = delete;

  // Each coder returns the bytes written to out[0..cap), or 0 when the library is absent,
  // failed, or the result did not fit.
  size_t zstd(const uint8_t* in, size_t n, uint8_t* out, size_t cap, int level = 1);
  size_t lz4(const uint8_t* in, size_t n, uint8_t* out, size_t cap);
  // Each decoder returns true when `in[0..len)` decodes to exactly n bytes.
  bool unzstd(const uint8_t* in, size_t len, uint8_t* out, size_t n);
  bool unlz4(const uint8_t* in, size_t len, uint8_t* out, size_t n);

  // Byte shuffle of `words` words of w bytes: out[b * words + i] = in[i * w + b].
  static void shuffle(const uint8_t* in, size_t words, unsigned w, uint8_t* out);
  static void unshuffle(const uint8_t* in, size_t words, unsigned w, uint8_t* out);

  // Scratch buffer of at least `bytes` bytes (grows, never shrinks).
  uint8_t* scratch(size_t bytes);

 private:
  [[maybe_unused]] void* cctx_ = nullptr;
  [[maybe_unused]] void* dctx_ = nullptr;
  std::vector<uint8_t> scratch_;
};

}  // namespace ccmpi::compress
