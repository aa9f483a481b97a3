// LzBackend: libzstd / liblz4 calls and the byte shuffle (see lz_backend.h).
#include "compress/lz_backend.h"

#include <cstring>
#include <limits>

#if CCMPI_HAVE_ZSTD
#include <zstd.h>
#endif
#if CCMPI_HAVE_LZ4
#include <lz4.h>
#endif

namespace ccmpi::compress {

bool haveZstd() {
#if CCMPI_HAVE_ZSTD
  return true;
#else
  return false;
#endif
}

bool haveLz4() {
#if CCMPI_HAVE_LZ4
  return true;
#else
  return false;
#endif
}

LzBackend::LzBackend() = default;

LzBackend::~LzBackend() {
#if CCMPI_HAVE_ZSTD
  ZSTD_freeCCtx(static_cast<ZSTD_CCtx*>(cctx_));
  ZSTD_freeDCtx(static_cast<ZSTD_DCtx*>(dctx_));
#endif
}

size_t LzBackend::zstd(const uint8_t* in, size_t n, uint8_t* out, size_t cap, int level) {
#if CCMPI_HAVE_ZSTD
  if (!cctx_) cctx_ = ZSTD_createCCtx();
  if (!cctx_) return 0;
  const size_t r = ZSTD_compressCCtx(static_cast<ZSTD_CCtx*>(cctx_), out, cap, in, n, level);
  return ZSTD_isError(r) || r > cap ? 0 : r;
#else
  (void)in, (void)n, (void)out, (void)cap, (void)level;
  return 0;
#endif
}

bool LzBackend::unzstd(const uint8_t* in, size_t len, uint8_t* out, size_t n) {
#if CCMPI_HAVE_ZSTD
  if (!dctx_) dctx_ = ZSTD_createDCtx();
  if (!dctx_) return false;
  // The frame must say how long it is, and say exactly n.
  const unsigned long long size = ZSTD_getFrameContentSize(in, len);
  if (size != n) return false;
  const size_t r = ZSTD_decompressDCtx(static_cast<ZSTD_DCtx*>(dctx_), out, n, in, len);
  return !ZSTD_isError(r) && r == n;
#else
  (void)in, (void)len, (void)out, (void)n;
  return false;
#endif
}

size_t LzBackend::lz4(const uint8_t* in, size_t n, uint8_t* out, size_t cap) {
#if CCMPI_HAVE_LZ4
  constexpr size_t kMax = static_cast<size_t>(std::numeric_limits<int>::max());
  if (n > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) return 0;
  const int r =
      LZ4_compress_default(reinterpret_cast<const char*>(in), reinterpret_cast<char*>(out),
                           static_cast<int>(n), static_cast<int>(cap > kMax ? kMax : cap));
  return r > 0 ? static_cast<size_t>(r) : 0;
#else
  (void)in, (void)n, (void)out, (void)cap;
  return 0;
#endif
}

bool LzBackend::unlz4(const uint8_t* in, size_t len, uint8_t* out, size_t n) {
#if CCMPI_HAVE_LZ4
  constexpr size_t kMax = static_cast<size_t>(std::numeric_limits<int>::max());
  if (len > kMax || n > kMax) return false;
  const int r = LZ4_decompress_safe(reinterpret_cast<const char*>(in), reinterpret_cast<char*>(out),
                                    static_cast<int>(len), static_cast<int>(n));
  return r >= 0 && static_cast<size_t>(r) == n;
#else
  (void)in, (void)len, (void)out, (void)n;
  return false;
#endif
}

namespace {
template <unsigned W>
void shuffleW(const uint8_t* in, size_t words, uint8_t* out) {
  for (size_t i = 0; i < words; ++i) {
    uint8_t v[W];
    std::memcpy(v, in + i * W, W);
    for (unsigned b = 0; b < W; ++b) out[b * words + i] = v[b];
  }
}
template <unsigned W>
void unshuffleW(const uint8_t* in, size_t words, uint8_t* out) {
  for (size_t i = 0; i < words; ++i) {
    uint8_t v[W];
    for (unsigned b = 0; b < W; ++b) v[b] = in[b * words + i];
    std::memcpy(out + i * W, v, W);
  }
}
}  // namespace

void LzBackend::shuffle(const uint8_t* in, size_t words, unsigned w, uint8_t* out) {
  if (w == 8) return shuffleW<8>(in, words, out);
  if (w == 4) return shuffleW<4>(in, words, out);
  for (size_t i = 0; i < words; ++i)
    for (unsigned b = 0; b < w; ++b) out[b * words + i] = in[i * w + b];
}

void LzBackend::unshuffle(const uint8_t* in, size_t words, unsigned w, uint8_t* out) {
  if (w == 8) return unshuffleW<8>(in, words, out);
  if (w == 4) return unshuffleW<4>(in, words, out);
  for (size_t i = 0; i < words; ++i)
    for (unsigned b = 0; b < w; ++b) out[i * w + b] = in[b * words + i];
}

uint8_t* LzBackend::scratch(size_t bytes) {
  if (scratch_.size() < bytes) scratch_.resize(bytes);
  return scratch_.data();
}

}  // namespace ccmpi::compress
