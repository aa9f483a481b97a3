// Tests of the message codecs (src/compress): round trips on the sample messages, special
// values, every small size and odd tails, 4-byte floats, the size bound, corrupt and
// truncated input, per-channel state across messages, and the cmpi codec's exact bits.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "compress/codec.h"
#include "compress/frame.h"

namespace ccmpi::compress {
namespace {

#ifndef CCMPI_FP_DATA_DIR
#error "CCMPI_FP_DATA_DIR must name the sample data directory"
#endif

const char* const kSampleFiles[] = {"msg_bt.f64", "msg_lu.f64", "msg_sp.f64", "msg_sppm.f64",
                                    "msg_sweep3d.f64"};

std::vector<uint8_t> readSample(const char* name) {
  const std::string path = std::string(CCMPI_FP_DATA_DIR) + "/" + name;
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    ADD_FAILURE() << "sample data missing: " << path
                  << " (expected ../shared/data/fp next to the source tree)";
    return {};
  }
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)),
                              std::istreambuf_iterator<char>());
}

std::vector<uint8_t> bytesOf(const std::vector<double>& v) {
  std::vector<uint8_t> b(v.size() * 8);
  if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

double fromBits(uint64_t b) {
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}

// Smooth data of 5 interleaved fields (like a CFD halo).
std::vector<uint8_t> smoothBytes(size_t n) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) {
    const double t = static_cast<double>(i / 5);
    v[i] = std::sin(0.01 * t + static_cast<double>(i % 5)) * (1.0 + static_cast<double>(i % 5));
  }
  return bytesOf(v);
}

std::vector<uint8_t> randomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> b(n);
  for (auto& x : b) x = static_cast<uint8_t>(rng());
  return b;
}

std::vector<uint8_t> compressOne(const Codec& c, CodecState& st, const std::vector<uint8_t>& in,
                                 DataType type = DataType::kFloat64) {
  std::vector<uint8_t> out(Codec::maxCompressedSize(in.size()));
  size_t n = 0;
  const int rc = c.compress(st, in.data(), in.size(), out.data(), out.size(), &n, type);
  EXPECT_EQ(rc, kOk) << c.name() << ": " << st.lastError();
  EXPECT_LE(n, in.size() + kMaxOverhead) << c.name();
  out.resize(n);
  return out;
}

std::vector<uint8_t> decompressOne(const Codec& c, CodecState& st, const std::vector<uint8_t>& msg,
                                   size_t expected, int* rcOut) {
  std::vector<uint8_t> out(expected + 1);
  size_t n = 0;
  *rcOut = c.decompress(st, msg.data(), msg.size(), out.data(), out.size(), &n);
  out.resize(*rcOut == kOk ? n : 0);
  return out;
}

void expectRoundTrip(const Codec& c, const std::vector<uint8_t>& in,
                     DataType type = DataType::kFloat64) {
  auto enc = c.newState();
  auto dec = c.newState();
  const auto msg = compressOne(c, *enc, in, type);
  int rc = 0;
  const auto back = decompressOne(c, *dec, msg, in.size(), &rc);
  ASSERT_EQ(rc, kOk) << c.name() << " size " << in.size() << ": " << dec->lastError();
  ASSERT_EQ(back, in) << c.name() << " size " << in.size();
}

TEST(CompressRegistry, ListsCodecsByNameAndId) {
  const auto& all = allCodecs();
  ASSERT_GE(all.size(), 5u);
  for (const char* name : {"raw", "cmpi", "fpc", "spx", "spx-fast"}) {
    const Codec* c = findCodec(name);
    ASSERT_NE(c, nullptr) << name;
    EXPECT_STREQ(c->name(), name);
    EXPECT_EQ(findCodecById(c->id()), c);
  }
  EXPECT_EQ(findCodec("nope"), nullptr);
  EXPECT_EQ(Codec::maxCompressedSize(100), 116u);
}

TEST(CompressRoundTrip, SampleFilesAllCodecs) {
  for (const char* f : kSampleFiles) {
    const auto data = readSample(f);
    ASSERT_EQ(data.size(), 120000u) << f;
    for (const Codec* c : allCodecs()) {
      SCOPED_TRACE(std::string(c->name()) + " " + f);
      expectRoundTrip(*c, data);
    }
  }
}

TEST(CompressRoundTrip, SampleFilesCompress) {
  // The predictive codecs must actually compress the sample messages.
  for (const char* f : kSampleFiles) {
    const auto data = readSample(f);
    for (const char* name : {"cmpi", "fpc", "spx", "spx-fast"}) {
      const Codec& c = *findCodec(name);
      auto st = c.newState();
      const auto msg = compressOne(c, *st, data);
      EXPECT_LT(msg.size() * 10, data.size() * 9) << name << " " << f;
    }
  }
}

TEST(CompressRoundTrip, ChunkedMessagesShareState) {
  // A channel: consecutive messages of assorted sizes (odd ones too) with one state each side.
  const auto data = readSample("msg_sweep3d.f64");
  for (const Codec* c : allCodecs()) {
    SCOPED_TRACE(c->name());
    auto enc = c->newState();
    auto dec = c->newState();
    size_t pos = 0, k = 0;
    const size_t sizes[] = {1024, 8192, 1001, 7, 0, 16384, 333, 40000};
    while (pos < data.size()) {
      const size_t len = std::min(sizes[k++ % 8], data.size() - pos);
      std::vector<uint8_t> in(data.begin() + static_cast<std::ptrdiff_t>(pos),
                              data.begin() + static_cast<std::ptrdiff_t>(pos + len));
      const auto msg = compressOne(*c, *enc, in);
      int rc = 0;
      const auto back = decompressOne(*c, *dec, msg, in.size(), &rc);
      ASSERT_EQ(rc, kOk) << "at " << pos << ": " << dec->lastError();
      ASSERT_EQ(back, in) << "at " << pos;
      pos += len;
    }
  }
}

TEST(CompressRoundTrip, RawFallbackKeepsChannelInStep) {
  // Messages whose first block codes (with a new predictor) and whose second block is
  // random often end up longer than raw; compress() then sends the message raw and the
  // decoder only adds its words to the history. The encoder must not keep the model of
  // the blocks it coded, or the next coded message decodes wrongly (spx-fast: checksum
  // mismatch at the first value; found with NPB CG class A over TCP, CCMPI_COMPRESS=on).
  for (const Codec* c : allCodecs()) {
    SCOPED_TRACE(c->name());
    auto enc = c->newState();
    auto dec = c->newState();
    std::mt19937_64 rng(42);
    for (int k = 0; k < 200; ++k) {
      const size_t n = 3500;
      const unsigned bits = 40 + static_cast<unsigned>(k % 24);  // noise in block 1
      std::vector<uint8_t> in(n * 8);
      for (size_t i = 0; i < n; ++i) {
        const double x = 1.0 + 0.001 * static_cast<double>(i);
        const uint64_t u = std::bit_cast<uint64_t>(x);
        const uint64_t v = i < 2048 ? (u ^ (rng() >> (64 - bits))) : rng();
        std::memcpy(in.data() + i * 8, &v, 8);
      }
      const auto msg = compressOne(*c, *enc, in);
      int rc = 0;
      const auto back = decompressOne(*c, *dec, msg, in.size(), &rc);
      ASSERT_EQ(rc, kOk) << "message " << k << ": " << dec->lastError();
      ASSERT_EQ(back, in) << "message " << k;
    }
  }
}

TEST(CompressRoundTrip, SpecialValuesBitExact) {
  const uint64_t specials[] = {
      0x7FF8000000000000ull,  // quiet NaN
      0x7FF0000000000001ull,  // signalling NaN
      0xFFF8000000000123ull,  // negative NaN with payload
      0x7FFFFFFFFFFFFFFFull,  // NaN, all payload bits
      0x8000000000000000ull,  // -0.0
      0x0000000000000000ull,  // +0.0
      0x7FF0000000000000ull,  // +inf
      0xFFF0000000000000ull,  // -inf
      0x0000000000000001ull,  // smallest subnormal
      0x000FFFFFFFFFFFFFull,  // largest subnormal
      0x800FFFFFFFFFFFFFull,  // negative subnormal
      0x0010000000000000ull,  // DBL_MIN
      0x7FEFFFFFFFFFFFFFull,  // DBL_MAX
      0xFFEFFFFFFFFFFFFFull,  // -DBL_MAX
  };
  std::vector<double> v;
  // Each special alone, in runs, interleaved with ordinary values and with each other,
  // so the predictors see NaN/inf differences and subnormal steps.
  for (uint64_t s : specials) {
    for (int r = 0; r < 9; ++r) v.push_back(fromBits(s));
    v.push_back(1.5);
    v.push_back(fromBits(s));
    v.push_back(-2.25);
  }
  for (uint64_t a : specials) {
    for (uint64_t b : specials) {
      v.push_back(fromBits(a));
      v.push_back(fromBits(b));
    }
  }
  for (int i = 0; i < 300; ++i) v.push_back(fromBits(0x0000000000000100ull + 7 * i));
  const auto in = bytesOf(v);
  for (const Codec* c : allCodecs()) {
    SCOPED_TRACE(c->name());
    expectRoundTrip(*c, in);
    expectRoundTrip(*c, in, DataType::kFloat32);
  }
}

TEST(CompressRoundTrip, EverySizeUpTo100AndOddTails) {
  const auto smooth = smoothBytes(64);
  const auto noise = randomBytes(512, 7);
  for (const Codec* c : allCodecs()) {
    SCOPED_TRACE(c->name());
    for (size_t n = 0; n <= 100; ++n) {
      expectRoundTrip(*c, std::vector<uint8_t>(smooth.begin(), smooth.begin() + n));
      expectRoundTrip(*c, std::vector<uint8_t>(noise.begin(), noise.begin() + n));
      expectRoundTrip(*c, std::vector<uint8_t>(smooth.begin(), smooth.begin() + n),
                      DataType::kFloat32);
    }
    for (size_t n : {4093u, 16381u, 16384u + 3, 2048u * 8 * 3 + 5}) {
      const auto big = smoothBytes((n + 7) / 8);
      expectRoundTrip(*c, std::vector<uint8_t>(big.begin(), big.begin() + n));
    }
  }
}

TEST(CompressRoundTrip, Float32Messages) {
  std::vector<float> f(10007);
  for (size_t i = 0; i < f.size(); ++i) {
    f[i] = static_cast<float>(std::cos(0.003 * static_cast<double>(i / 3)) + (i % 3));
  }
  std::vector<uint8_t> in(f.size() * 4);
  std::memcpy(in.data(), f.data(), in.size());
  for (const Codec* c : allCodecs()) {
    SCOPED_TRACE(c->name());
    expectRoundTrip(*c, in, DataType::kFloat32);
  }
  // spx has a 32-bit path: it must compress floats well.
  for (const char* name : {"spx", "spx-fast"}) {
    const Codec& c = *findCodec(name);
    auto st = c.newState();
    EXPECT_LT(compressOne(c, *st, in, DataType::kFloat32).size() * 3, in.size() * 2) << name;
  }
}

// Interleaved fields (stride s) that follow polynomials of each order, with stretches of
// exactly repeated values (zero residuals: lone codes and runs of every length) and of
// noise, in 64- and 32-bit words, several messages through one channel state: exercises
// every predictor, the run codes and the vector and register paths of the decoders.
template <typename W>
std::vector<uint8_t> stridedFields(size_t n, unsigned stride, unsigned order, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<W> w(n);
  for (size_t i = 0; i < n; ++i) {
    const double t = static_cast<double>(i / stride) * 0.01;
    const double lane = static_cast<double>(i % stride);
    double v = lane + 1.0;
    for (unsigned k = 1; k <= order; ++k) v += std::pow(t, k) / (k + lane);
    W bits;
    if constexpr (sizeof(W) == 8) {
      std::memcpy(&bits, &v, 8);
    } else {
      const float f = static_cast<float>(v);
      std::memcpy(&bits, &f, 4);
    }
    w[i] = bits;
  }
  // Repeats of the value one stride back, of random lengths, and a few noisy words.
  for (int r = 0; r < 40 && n > 2 * stride; ++r) {
    const size_t at = stride + rng() % (n - stride);
    const size_t len = std::min<size_t>(n - at, 1 + rng() % 300);
    for (size_t i = at; i < at + len; ++i) w[i] = w[i - stride];
  }
  for (int r = 0; r < 20 && n > 0; ++r)
    w[rng() % n] = static_cast<W>(rng() * 0x9E3779B97F4A7C15ull);
  std::vector<uint8_t> b(n * sizeof(W));
  std::memcpy(b.data(), w.data(), b.size());
  return b;
}

TEST(CompressRoundTrip, StridesOrdersRunsAndWordSizes) {
  for (const char* name : {"spx", "spx-fast"}) {
    const Codec& c = *findCodec(name);
    for (const DataType type : {DataType::kFloat64, DataType::kFloat32}) {
      auto enc = c.newState();
      auto dec = c.newState();
      size_t inBytes = 0, outBytes = 0;
      for (unsigned stride : {1u, 2u, 3u, 4u, 5u, 7u, 10u, 16u}) {
        for (unsigned order = 0; order <= 3; ++order) {
          const size_t n = 37 + (stride * 997 + order * 1231) % 6000;
          const uint32_t seed = stride * 4 + order;
          const auto in = type == DataType::kFloat64
                              ? stridedFields<uint64_t>(n, stride, order, seed)
                              : stridedFields<uint32_t>(n, stride, order, seed);
          SCOPED_TRACE(std::string(name) + " stride " + std::to_string(stride) + " order " +
                       std::to_string(order) + (type == DataType::kFloat32 ? " float" : " double"));
          const auto msg = compressOne(c, *enc, in, type);
          int rc = 0;
          const auto back = decompressOne(c, *dec, msg, in.size(), &rc);
          ASSERT_EQ(rc, kOk) << dec->lastError();
          ASSERT_EQ(back, in);
          inBytes += in.size();
          outBytes += msg.size();
        }
      }
      // Smooth fields with long repeats compress: a wrong predictor choice would not.
      EXPECT_LT(outBytes * 2, inBytes) << name;
    }
  }
}

// The message checksum must see the error sequences a predictor that lost step leaves
// behind: smooth ones (finite differences of a spike, which cancel in Fletcher-type
// sums) at any word size, lag and position, as well as single bit flips and swaps.
TEST(CompressChecksum, SeesSmoothErrorsFlipsAndSwaps) {
  const auto base = randomBytes(4096 + 24, 99);
  for (size_t len : {size_t{40}, size_t{255}, size_t{256}, size_t{1000}, size_t{4096 + 24}}) {
    const std::vector<uint8_t> ref(base.begin(), base.begin() + static_cast<std::ptrdiff_t>(len));
    const uint32_t sum = checksum32(ref.data(), len);
    // Differences of order 1..4 of a spike (+d -d; +d -2d +d; ...) on 32- and 64-bit
    // words, every lag up to 16 words.
    const int64_t pattern[4][5] = {{1, -1}, {1, -2, 1}, {1, -3, 3, -1}, {1, -4, 6, -4, 1}};
    for (size_t word : {size_t{4}, size_t{8}}) {
      for (int order = 0; order < 4; ++order) {
        for (size_t lag = 1; lag <= 16; ++lag) {
          for (size_t at : {size_t{0}, size_t{3}, size_t{17}}) {
            if ((at + (order + 1) * lag + 1) * word > len) continue;
            auto bad = ref;
            for (int k = 0; k <= order + 1 && pattern[order][k] != 0; ++k) {
              const size_t off = (at + static_cast<size_t>(k) * lag) * word;
              uint64_t w = 0;
              std::memcpy(&w, bad.data() + off, word);
              w += static_cast<uint64_t>(pattern[order][k] * 3);
              std::memcpy(bad.data() + off, &w, word);
            }
            EXPECT_NE(checksum32(bad.data(), len), sum)
                << "len " << len << " word " << word << " order " << order + 1 << " lag " << lag
                << " at " << at;
          }
        }
      }
    }
    for (size_t bit = 0; bit < len * 8; bit += 7) {
      auto bad = ref;
      bad[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
      ASSERT_NE(checksum32(bad.data(), len), sum) << "len " << len << " bit " << bit;
    }
    for (size_t a = 0; a + 8 < len; a += 24) {  // two 8-byte words swapped
      auto bad = ref;
      const size_t b = std::min(len - 8, a + 32);
      if (std::memcmp(bad.data() + a, bad.data() + b, 8) == 0) continue;
      std::swap_ranges(bad.begin() + static_cast<std::ptrdiff_t>(a),
                       bad.begin() + static_cast<std::ptrdiff_t>(a + 8),
                       bad.begin() + static_cast<std::ptrdiff_t>(b));
      EXPECT_NE(checksum32(bad.data(), len), sum) << "len " << len << " swap " << a;
    }
  }
}

// checksum32 as frame.cc documents it, one word at a time: the vector paths (SSE2 below
// 256 bytes and for the tail, AVX2 from 256 bytes where the processor has it) must agree.
namespace {
uint32_t referenceChecksum(const uint8_t* p, size_t bytes) {
  const uint64_t key[4] = {0x243F6A8885A308D3ull, 0x13198A2E03707344ull, 0xA4093822299F31D0ull,
                           0x082EFA98EC4E6C89ull};
  const uint64_t kStep[4] = {0x9E3779B97F4A7C15ull, 0xBF58476D1CE4E5B9ull, 0x94D049BB133111EBull,
                             0xD6E8FEB86659FD93ull};
  uint64_t acc[4] = {};
  for (size_t i = 0; i < bytes; i += 32) {
    uint64_t w[4] = {};
    std::memcpy(w, p + i, std::min<size_t>(32, bytes - i));
    for (int l = 0; l < 4; ++l) {
      const uint64_t a = key[l] + (i / 32) * kStep[l];
      const uint64_t dk = w[l] ^ a ^ (a >> 29) ^ (a << 35);
      acc[l] += (dk & 0xFFFFFFFFu) * (dk >> 32) + w[l ^ 1];
    }
  }
  constexpr uint64_t kP1 = 0x9E3779B185EBCA87ull, kP2 = 0xC2B2AE3D27D4EB4Full;
  uint64_t h = kP1 ^ bytes;
  for (uint64_t a : acc) h = std::rotl(h + a * kP2, 31) * kP1;
  h ^= h >> 33;
  h *= kP2;
  h ^= h >> 29;
  h *= kP1;
  h ^= h >> 32;
  return static_cast<uint32_t>(h);
}
}  // namespace

TEST(CompressChecksum, VectorPathsMatchTheDefinition) {
  const auto data = randomBytes(5000, 3);
  for (size_t len = 0; len <= 5000; len += (len < 600 ? 1 : 97)) {
    ASSERT_EQ(checksum32(data.data(), len), referenceChecksum(data.data(), len)) << "len " << len;
  }
}

// A stride predictor fed one corrupt residual repeats the error every stride: the same
// bit flipped in every p-th word. With per-block keys in plain arithmetic progression such
// errors cancelled exactly (the fuzzer found bit 61 flipped in 8 words 12 apart in zeros);
// every period, count and bit must change the sum, in zeros and in random data.
TEST(CompressChecksum, SeesPeriodicBitFlips) {
  constexpr size_t kLen = 1617;  // a partial last block, as in the fuzzer's input
  for (int data = 0; data < 2; ++data) {
    const std::vector<uint8_t> ref = data ? randomBytes(kLen, 7) : std::vector<uint8_t>(kLen, 0);
    const uint32_t sum = checksum32(ref.data(), kLen);
    for (size_t period = 1; period <= 48; ++period) {
      for (size_t count : {size_t{2}, size_t{3}, size_t{4}, size_t{8}, size_t{16}}) {
        for (size_t first : {size_t{0}, size_t{5}, size_t{112}}) {
          if ((first + (count - 1) * period + 1) * 8 > kLen) continue;
          for (int bit = 0; bit < 64; ++bit) {
            auto bad = ref;
            for (size_t k = 0; k < count; ++k) {
              bad[(first + k * period) * 8 + static_cast<size_t>(bit / 8)] ^=
                  static_cast<uint8_t>(1u << (bit % 8));
            }
            ASSERT_NE(checksum32(bad.data(), kLen), sum)
                << (data ? "random" : "zeros") << " period " << period << " count " << count
                << " first " << first << " bit " << bit;
          }
        }
      }
    }
  }
}

TEST(CompressBounds, IncompressibleDataStaysWithin16Bytes) {
  for (const Codec* c : allCodecs()) {
    for (size_t n : {0u, 1u, 8u, 9u, 1000u, 65536u, 100003u}) {
      const auto in = randomBytes(n, static_cast<uint32_t>(n));
      auto st = c->newState();
      const auto msg = compressOne(*c, *st, in);
      EXPECT_LE(msg.size(), n + kMaxOverhead) << c->name() << " " << n;
    }
  }
}

TEST(CompressBounds, RejectsSmallOutputAndForeignStates) {
  const auto in = smoothBytes(100);
  const Codec& spx = *findCodec("spx");
  const Codec& cmpi = *findCodec("cmpi");
  auto st = spx.newState();
  std::vector<uint8_t> out(in.size());
  size_t n = 0;
  EXPECT_EQ(spx.compress(*st, in.data(), in.size(), out.data(), out.size(), &n), kErrOutputSpace);
  auto other = cmpi.newState();
  out.resize(Codec::maxCompressedSize(in.size()));
  EXPECT_EQ(spx.compress(*other, in.data(), in.size(), out.data(), out.size(), &n), kErrWrongCodec);
  ASSERT_EQ(spx.compress(*st, in.data(), in.size(), out.data(), out.size(), &n), kOk);
  std::vector<uint8_t> back(in.size());
  auto dec = spx.newState();
  EXPECT_EQ(cmpi.decompress(*other, out.data(), n, back.data(), back.size(), &n), kErrWrongCodec);
  EXPECT_EQ(spx.decompress(*dec, out.data(), n, back.data(), back.size() - 1, &n), kErrOutputSpace);
  EXPECT_FALSE(dec->broken());
}

// Every truncation of a message is rejected; a flipped bit is rejected or harmless.
TEST(CompressCorrupt, TruncationsAndBitFlipsAreErrors) {
  const auto sample = readSample("msg_sp.f64");
  ASSERT_FALSE(sample.empty());
  const std::vector<uint8_t> inputs[] = {
      std::vector<uint8_t>(sample.begin(), sample.begin() + 2000),
      std::vector<uint8_t>(sample.begin(), sample.begin() + 403),  // odd tail
      randomBytes(300, 3),                                         // stored raw
      std::vector<uint8_t>(8 * 3000, 0),                           // zero runs
  };
  for (const Codec* c : allCodecs()) {
    SCOPED_TRACE(c->name());
    for (const auto& in : inputs) {
      auto enc = c->newState();
      const auto msg = compressOne(*c, *enc, in);
      std::vector<uint8_t> out(in.size() + 64);
      size_t n = 0;
      for (size_t cut = 0; cut < msg.size(); cut += (cut < 64 ? 1 : 7)) {
        auto dec = c->newState();
        std::vector<uint8_t> t(msg.begin(), msg.begin() + static_cast<std::ptrdiff_t>(cut));
        EXPECT_NE(c->decompress(*dec, t.data(), t.size(), out.data(), out.size(), &n), kOk)
            << "truncated to " << cut << " of " << msg.size();
      }
      std::vector<uint8_t> longer = msg;
      longer.push_back(0);
      auto dec = c->newState();
      EXPECT_NE(c->decompress(*dec, longer.data(), longer.size(), out.data(), out.size(), &n), kOk);
      // A flipped bit is either rejected or harmless (some bits are redundant, e.g. fpc's
      // selector where both predictors agree): never silently wrong data.
      const size_t step = msg.size() > 800 ? 13 : 1;
      size_t flips = 0, rejected = 0;
      for (size_t bit = 0; bit < msg.size() * 8; bit += (bit % 8 == 7 ? step * 8 - 7 : 1)) {
        std::vector<uint8_t> f = msg;
        f[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
        auto d = c->newState();
        const int rc = c->decompress(*d, f.data(), f.size(), out.data(), out.size(), &n);
        ++flips;
        if (rc != kOk) {
          ++rejected;
        } else {
          EXPECT_TRUE(n == in.size() && std::memcmp(out.data(), in.data(), n) == 0)
              << "bit " << bit << " of " << msg.size() << " bytes decoded to wrong data";
        }
      }
      EXPECT_GE(rejected * 4, flips * 3) << rejected << " of " << flips << " flips rejected";
    }
  }
}

TEST(CompressCorrupt, BrokenStateFailsUntilReset) {
  const auto in = smoothBytes(500);
  for (const Codec* c : allCodecs()) {
    auto enc = c->newState();
    auto dec = c->newState();
    auto msg = compressOne(*c, *enc, in);
    msg[msg.size() / 2] ^= 0x10;
    std::vector<uint8_t> out(in.size());
    size_t n = 0;
    EXPECT_EQ(c->decompress(*dec, msg.data(), msg.size(), out.data(), out.size(), &n), kErrCorrupt)
        << c->name();
    EXPECT_TRUE(dec->broken());
    EXPECT_STRNE(dec->lastError(), "");
    msg[msg.size() / 2] ^= 0x10;
    EXPECT_EQ(c->decompress(*dec, msg.data(), msg.size(), out.data(), out.size(), &n),
              kErrBrokenState);
    dec->reset();
    enc->reset();
    const auto again = compressOne(*c, *enc, in);
    int rc = 0;
    EXPECT_EQ(decompressOne(*c, *dec, again, in.size(), &rc), in) << c->name();
    EXPECT_EQ(rc, kOk);
  }
}

TEST(CompressCorrupt, HeaderValidation) {
  FrameHeader h;
  h.codecId = 4;
  h.flags = kModeCoded;
  h.length = 300;
  h.checksum = 0x12345678;
  uint8_t buf[kMaxHeaderBytes];
  const size_t hb = writeFrameHeader(h, buf);
  ASSERT_EQ(hb, 3u + 2u + 4u);
  FrameHeader p;
  ASSERT_TRUE(parseFrameHeader(buf, hb, &p));
  EXPECT_EQ(p.length, 300u);
  EXPECT_EQ(p.checksum, 0x12345678u);
  EXPECT_EQ(p.headerBytes, hb);
  for (size_t cut = 0; cut < hb; ++cut) EXPECT_FALSE(parseFrameHeader(buf, cut, &p));
  uint8_t bad[kMaxHeaderBytes];
  std::memcpy(bad, buf, hb);
  bad[0] ^= 1;  // magic
  EXPECT_FALSE(parseFrameHeader(bad, hb, &p));
  std::memcpy(bad, buf, hb);
  bad[2] = 0x80;  // reserved flag
  EXPECT_FALSE(parseFrameHeader(bad, hb, &p));
  const uint8_t overlong[] = {kFrameMagic, 4, 1, 0x85, 0x00, 1, 2, 3, 4};
  EXPECT_FALSE(parseFrameHeader(overlong, sizeof(overlong), &p));
  h.length = uint64_t{1} << 63;
  EXPECT_EQ(writeFrameHeader(h, buf), 0u);
  h.length = (uint64_t{1} << 63) - 1;
  EXPECT_EQ(writeFrameHeader(h, buf), kMaxHeaderBytes);
}

// A warmed channel state codes the next message of similar data in fewer bytes, and the
// receiver's warmed state decodes it.
TEST(CompressState, WarmStateCompressesBetter) {
  // The next time step of a halo: the same field, every value slightly changed.
  const auto data = readSample("msg_bt.f64");
  ASSERT_EQ(data.size(), 120000u);
  const std::vector<uint8_t> first(data.begin(), data.begin() + 60000);
  std::vector<double> next(first.size() / 8);
  std::memcpy(next.data(), first.data(), first.size());
  for (double& x : next) x *= 1.0 + 0x1p-30;
  const std::vector<uint8_t> second = bytesOf(next);
  for (const char* name : {"cmpi", "fpc", "spx", "spx-fast"}) {
    SCOPED_TRACE(name);
    const Codec& c = *findCodec(name);
    auto cold = c.newState();
    const size_t coldBytes = compressOne(c, *cold, second).size();
    auto enc = c.newState();
    auto dec = c.newState();
    const auto m1 = compressOne(c, *enc, first);
    const auto m2 = compressOne(c, *enc, second);
    EXPECT_LT(m2.size(), coldBytes);
    int rc = 0;
    EXPECT_EQ(decompressOne(c, *dec, m1, first.size(), &rc), first);
    EXPECT_EQ(decompressOne(c, *dec, m2, second.size(), &rc), second);
    EXPECT_EQ(rc, kOk);
    // A cold receiver cannot decode the warm message.
    auto coldDec = c.newState();
    decompressOne(c, *coldDec, m2, second.size(), &rc);
    EXPECT_NE(rc, kOk);
  }
}

// A message stored raw (incompressible) still advances both predictors the same way.
TEST(CompressState, RawFallbackKeepsStatesInStep) {
  const auto data = readSample("msg_lu.f64");
  ASSERT_FALSE(data.empty());
  for (const Codec* c : allCodecs()) {
    SCOPED_TRACE(c->name());
    auto enc = c->newState();
    auto dec = c->newState();
    const std::vector<uint8_t> msgs[] = {
        std::vector<uint8_t>(data.begin(), data.begin() + 40000), randomBytes(8000, 5),
        std::vector<uint8_t>(data.begin() + 40000, data.begin() + 80000), randomBytes(13, 6),
        std::vector<uint8_t>(data.begin() + 80000, data.end())};
    for (const auto& in : msgs) {
      const auto m = compressOne(*c, *enc, in);
      int rc = 0;
      ASSERT_EQ(decompressOne(*c, *dec, m, in.size(), &rc), in) << dec->lastError();
    }
  }
}

// --- cmpi: exact output ------------------------------------------------------------

// MSB-first bit string builder for expected payloads.
struct Bits {
  std::vector<uint8_t> bytes;
  size_t n = 0;
  void put(uint64_t v, unsigned len) {
    for (unsigned i = len; i-- > 0;) {
      if (n % 8 == 0) bytes.push_back(0);
      if ((v >> i) & 1) bytes.back() |= static_cast<uint8_t>(0x80u >> (n % 8));
      ++n;
    }
  }
};

std::vector<uint8_t> payloadOf(const std::vector<uint8_t>& msg, uint8_t* flags) {
  FrameHeader h;
  EXPECT_TRUE(parseFrameHeader(msg.data(), msg.size(), &h));
  *flags = h.flags;
  return std::vector<uint8_t>(msg.begin() + static_cast<std::ptrdiff_t>(h.headerBytes), msg.end());
}

// Hand-computed (see codec_cmpi.cc for the model; fresh state is all zeros):
//  v0 = 1      hash 0       line {0,0}: close, Δp = 0          pred 0    diff 3FF0.. LZC 0
//  v1 = 2      hash 0xFFC   line {0,0}                         pred 1    diff 7FF0.. LZC 0
//  v2 = 3      hash 0x707C  line {0,0}                         pred 2    diff 0008.. LZC 3
//  v3 = 4      hash 0x7C    line {0,0}                         pred 3    diff 0018.. LZC 2
//  v4 = 5      hash 0x7C    line {1,0}: not close, Δp = 1      pred 5    diff 0      LZC 15
//  v5 = 6.0625 hash 0x7C    line {1,1}: close, Δp = 1+(1-1)    pred 6    diff 0000400.. LZC 4
//  v6 = 7.1875 hash 0x7C    line {1.0625,1}: drift, Δp = 1.125 pred 7.1875 diff 0  LZC 15
// (hash(Δ0,Δ1,Δ2) = Δ2 ^ Δ1<<5 ^ Δ0<<10 mod 2^15 with Δ = 0xFFC, the top 14 bits of 1.0.)
TEST(CompressCmpi, MatchesHandComputedBits) {
  const std::vector<double> v = {1.0, 2.0, 3.0, 4.0, 5.0, 6.0625, 7.1875};
  Bits e;
  e.put(0, 4), e.put(0x3FF0000000000000ull, 64);
  e.put(0, 4), e.put(0x7FF0000000000000ull, 64);
  e.put(3, 4), e.put(0x0008000000000000ull, 52);
  e.put(2, 4), e.put(0x0018000000000000ull, 56);
  e.put(15, 4), e.put(0, 4);
  e.put(4, 4), e.put(0x0000400000000000ull, 48);
  e.put(15, 4), e.put(0, 4);
  ASSERT_EQ(e.n, 320u);
  const Codec& c = *findCodec("cmpi");
  auto st = c.newState();
  const auto msg = compressOne(c, *st, bytesOf(v));
  uint8_t flags = 0;
  const auto payload = payloadOf(msg, &flags);
  EXPECT_EQ(flags, kModeCoded);
  EXPECT_EQ(payload, e.bytes);
  // The paper's worst case, 4 + 4 bits per value: constant data is 8x at best.
  auto st2 = c.newState();
  const auto constant = compressOne(c, *st2, bytesOf(std::vector<double>(4096, 3.25)));
  EXPECT_GE(constant.size(), 4096u);
}

// An independent, plain reimplementation of the cMPI model (cMPI §2.2-2.3) must produce
// the same payload as the codec on real data, for several messages on one channel.
TEST(CompressCmpi, MatchesReferenceModelOnSampleData) {
  struct Ref {
    std::vector<uint64_t> newest = std::vector<uint64_t>(1 << 15), older = newest;
    double last = 0;
    uint32_t d[3] = {0, 0, 0};  // Δ0, Δ1, Δ2
    static uint64_t bits(double x) {
      uint64_t b;
      std::memcpy(&b, &x, 8);
      if (std::isnan(x)) b = 0x7FF8000000000000ull;
      return b;
    }
    void code(double x, Bits* out) {
      const uint32_t h = (d[2] ^ (d[1] << 5) ^ (d[0] << 10)) & 0x7FFF;
      const double dn = fromBits(newest[h]), dp = fromBits(older[h]);
      const double delta = (newest[h] >> 50) == (older[h] >> 50) ? dn + (dn - dp) : dn;
      const uint64_t pred = bits(last + delta);
      uint64_t xb;
      std::memcpy(&xb, &x, 8);
      const uint64_t diff = xb ^ pred;
      unsigned lzc = 0;
      while (lzc < 15 && (diff >> (60 - 4 * lzc)) == 0) ++lzc;
      out->put(lzc, 4);
      out->put(diff & (64 - 4 * lzc == 64 ? ~0ull : (1ull << (64 - 4 * lzc)) - 1), 64 - 4 * lzc);
      const uint64_t nd = bits(x - last);
      older[h] = newest[h];
      newest[h] = nd;
      d[0] = d[1];
      d[1] = d[2];
      d[2] = static_cast<uint32_t>(nd >> 50);
      last = x;
    }
  } ref;
  const auto data = readSample("msg_bt.f64");
  ASSERT_EQ(data.size(), 120000u);
  const Codec& c = *findCodec("cmpi");
  auto st = c.newState();
  for (size_t off = 0; off < data.size(); off += 40000) {
    const std::vector<uint8_t> in(data.begin() + static_cast<std::ptrdiff_t>(off),
                                  data.begin() + static_cast<std::ptrdiff_t>(off + 40000));
    Bits e;
    for (size_t i = 0; i < in.size(); i += 8) {
      double x;
      std::memcpy(&x, in.data() + i, 8);
      ref.code(x, &e);
    }
    uint8_t flags = 0;
    EXPECT_EQ(payloadOf(compressOne(c, *st, in), &flags), e.bytes) << "message at " << off;
  }
}

}  // namespace
}  // namespace ccmpi::compress
