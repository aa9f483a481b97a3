// Tests of the codecs of issue 27 (adapt, zstd, shuffle-zstd, lz4): bit-exact round trips
// on every kind of the generated corpus (bench/codec/gen_corpus.py, made here in C++ at
// small sizes), edge values (NaN payloads, -0.0, denormals, inf) inside decimal data,
// odd lengths, empty and 1-byte messages, 1 MiB of constant data, multi-chunk messages,
// that adapt picks the paths it should (never raw for compressible data, close to the
// best reference), and corrupt or truncated messages refused without crashing.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "compress/codec.h"

namespace ccmpi::compress {
namespace {

std::vector<uint8_t> toBytes(const std::vector<double>& v) {
  std::vector<uint8_t> b(v.size() * 8);
  if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

double fromBits(uint64_t u) {
  double d;
  std::memcpy(&d, &u, 8);
  return d;
}

// The double a text file with `places` decimals holds.
double decimal(double x, int places) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", places, x);
  return std::strtod(buf, nullptr);
}

struct Kind {
  const char* name;
  std::vector<uint8_t> bytes;
  DataType type = DataType::kFloat64;
};

// The corpus kinds at n values each (seeded, deterministic).
std::vector<Kind> kinds(size_t n, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> gauss(0, 1);
  std::uniform_real_distribution<double> uni(0, 1);
  std::vector<Kind> out;
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) {  // smooth field with relative noise
    const double x = static_cast<double>(i % 256) / 256, y = static_cast<double>(i / 256) / 256;
    v[i] = std::exp(-(x - 0.5) * (x - 0.5) * 8) * std::sin(6 * y + x) * (1 + 1e-9 * gauss(rng));
  }
  out.push_back({"field", toBytes(v)});
  for (size_t i = 0; i < n; ++i)
    v[i] = 0.5 + 0.1 * std::sin(static_cast<double>(i / 3)) + 0.02 * gauss(rng);
  out.push_back({"particles", toBytes(v)});
  double e = 0;
  for (size_t i = 0; i < n; ++i) {
    e = 0.95 * e + 0.05 * gauss(rng);
    v[i] = 20 + 5 * std::sin(static_cast<double>(i) / 500) + e;
  }
  out.push_back({"sensor", toBytes(v)});
  double p[4] = {101.25, 33.10, 250.00, 12.34};
  for (size_t i = 0; i < n; ++i) {
    double& q = p[i % 4];
    q += 0.01 * static_cast<double>(static_cast<int>(rng() % 5) - 2);
    v[i] = decimal(q, 2);
  }
  out.push_back({"prices", toBytes(v)});
  for (size_t i = 0; i < n; ++i)
    v[i] = decimal(15 + 8 * std::sin(static_cast<double>(i) / 24) + gauss(rng), 1);
  out.push_back({"temperatures", toBytes(v)});
  double idx = 0;
  for (size_t i = 0; i < n; ++i) {
    idx += static_cast<double>(1 + rng() % 4);
    v[i] = i % 2 ? idx : static_cast<double>(rng() % 100);
  }
  out.push_back({"integers", toBytes(v)});
  for (size_t i = 0; i < n; ++i) v[i] = uni(rng) < 0.03 ? gauss(rng) : 0.0;
  out.push_back({"sparse", toBytes(v)});
  double lat = 48.1, lon = 11.5;
  for (size_t i = 0; i < n; ++i) {
    (i % 2 ? lon : lat) += 1e-4 * gauss(rng);
    v[i] = decimal(i % 2 ? lon : lat, 6);
  }
  out.push_back({"geo", toBytes(v)});
  for (size_t i = 0; i < n; ++i) v[i] = gauss(rng);
  out.push_back({"noise", toBytes(v)});
  std::vector<float> f(n);
  for (size_t i = 0; i < n; ++i)
    f[i] =
        static_cast<float>(280 + 10 * std::sin(static_cast<double>(i) / 100) + 0.01 * gauss(rng));
  std::vector<uint8_t> fb(n * 4);
  std::memcpy(fb.data(), f.data(), fb.size());
  out.push_back({"float32", fb, DataType::kFloat32});
  return out;
}

// Decimal data with every awkward value mixed in.
std::vector<uint8_t> edgeDecimals(size_t n) {
  const double edges[] = {-0.0,
                          0.0,
                          std::numeric_limits<double>::infinity(),
                          -std::numeric_limits<double>::infinity(),
                          fromBits(0x7FF8000000000001ull),  // quiet NaN with a payload
                          fromBits(0x7FF0000000000ABCull),  // signalling NaN with a payload
                          fromBits(0xFFF8DEADBEEF0000ull),  // negative NaN
                          std::numeric_limits<double>::denorm_min(),
                          -std::numeric_limits<double>::denorm_min(),
                          std::numeric_limits<double>::min(),
                          std::numeric_limits<double>::max(),
                          1e300,
                          0.1 + 0.2,
                          9007199254740993.0,
                          -2251799813685248.5};
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) {
    v[i] = i % 37 == 5 ? edges[(i / 37) % (sizeof(edges) / sizeof(edges[0]))]
                       : decimal(static_cast<double>(i % 1000) * 0.37 - 100, 2);
  }
  return toBytes(v);
}

std::vector<const Codec*> newCodecs() {
  std::vector<const Codec*> cs;
  for (const char* name : {"adapt", "zstd", "shuffle-zstd", "lz4"}) {
    if (const Codec* c = findCodec(name)) cs.push_back(c);
  }
  return cs;
}

// Compresses with a fresh state, checks the bound, decompresses with a fresh state and
// compares bit for bit. Returns the compressed size.
size_t roundTrip(const Codec& c, const std::vector<uint8_t>& in,
                 DataType type = DataType::kFloat64) {
  auto enc = c.newState();
  auto dec = c.newState();
  std::vector<uint8_t> msg(Codec::maxCompressedSize(in.size()));
  size_t m = 0;
  EXPECT_EQ(c.compress(*enc, in.data(), in.size(), msg.data(), msg.size(), &m, type), kOk)
      << c.name() << ": " << enc->lastError();
  EXPECT_LE(m, in.size() + kMaxOverhead);
  std::vector<uint8_t> out(in.size() + 1);
  size_t n = 0;
  EXPECT_EQ(c.decompress(*dec, msg.data(), m, out.data(), out.size(), &n), kOk)
      << c.name() << ": " << dec->lastError();
  EXPECT_EQ(n, in.size());
  EXPECT_TRUE(n == in.size() && (n == 0 || std::memcmp(out.data(), in.data(), n) == 0))
      << c.name() << ": round trip not bit-exact";
  return m;
}

TEST(CompressLz, RegisteredWhenBuilt) {
  const Codec* a = findCodec("adapt");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(findCodecById(a->id()), a);
  for (const char* name : {"zstd", "shuffle-zstd", "lz4"}) {
    const Codec* c = findCodec(name);
    if (!c) {
      std::printf("note: %s not built (library absent at build time)\n", name);
      continue;
    }
    EXPECT_STREQ(c->name(), name);
    EXPECT_EQ(findCodecById(c->id()), c);
  }
}

TEST(CompressAdapt, EveryKindRoundTrips) {
  for (const Codec* c : newCodecs()) {
    SCOPED_TRACE(c->name());
    for (size_t n : {size_t{1000}, size_t{40000}}) {  // one chunk; several chunks
      for (const Kind& k : kinds(n, 7)) {
        SCOPED_TRACE(k.name);
        roundTrip(*c, k.bytes, k.type);
        // Odd tails: a few bytes cut off.
        std::vector<uint8_t> odd(k.bytes.begin(), k.bytes.end() - 3);
        roundTrip(*c, odd, k.type);
      }
    }
  }
}

TEST(CompressAdapt, EdgeValuesBitExact) {
  for (const Codec* c : newCodecs()) {
    SCOPED_TRACE(c->name());
    for (size_t n : {size_t{37 * 15}, size_t{5000}, size_t{70000}}) {
      const auto in = edgeDecimals(n);
      const size_t m = roundTrip(*c, in);
      if (std::string(c->name()) == "adapt") {
        // The decimal path keeps the exceptions verbatim and still compresses.
        EXPECT_LT(m * 2, in.size()) << n;
      }
    }
    // Only awkward values.
    std::vector<double> v;
    for (int i = 0; i < 4000; ++i) {
      v.push_back(-0.0);
      v.push_back(fromBits(0x7FF8000000000000ull | static_cast<uint64_t>(i)));
      v.push_back(std::numeric_limits<double>::denorm_min() * i);
      v.push_back(i % 2 ? std::numeric_limits<double>::infinity() : -1.5);
    }
    roundTrip(*c, toBytes(v));
  }
}

TEST(CompressAdapt, SmallAndEmptyAndConstant) {
  for (const Codec* c : newCodecs()) {
    SCOPED_TRACE(c->name());
    roundTrip(*c, {});
    roundTrip(*c, {0x42});
    for (size_t len = 2; len <= 70; ++len) {
      std::vector<uint8_t> in(len);
      for (size_t i = 0; i < len; ++i) in[i] = static_cast<uint8_t>(i * 29 + len);
      roundTrip(*c, in);
      roundTrip(*c, in, DataType::kFloat32);
    }
    std::vector<double> constant(131072, 3.25);  // 1 MiB
    const size_t m = roundTrip(*c, toBytes(constant));
    EXPECT_LT(m, 1024u * 1024 / 100) << "1 MiB of one value";
  }
}

// adapt keeps up with the best of the references on each kind (within a few percent:
// chunk and sample overheads), and never leaves compressible data raw.
TEST(CompressAdapt, ComparableToTheBestReference) {
  const Codec* a = findCodec("adapt");
  ASSERT_NE(a, nullptr);
  for (const Kind& k : kinds(40000, 11)) {
    SCOPED_TRACE(k.name);
    const size_t mine = roundTrip(*a, k.bytes, k.type);
    size_t best = k.bytes.size();
    const char* bestName = "raw";
    for (const char* name : {"spx", "spx-fast", "zstd", "shuffle-zstd", "lz4"}) {
      const Codec* c = findCodec(name);
      if (!c) continue;
      const size_t m = roundTrip(*c, k.bytes, k.type);
      if (m < best) best = m, bestName = name;
    }
    EXPECT_LE(static_cast<double>(mine), 1.10 * static_cast<double>(best))
        << "adapt " << mine << " bytes, " << bestName << " " << best;
    if (best < k.bytes.size() * 9 / 10) {
      EXPECT_LT(mine, k.bytes.size() * 95 / 100);
    }
  }
}

TEST(CompressAdapt, DecimalsCompressWell) {
  const Codec* a = findCodec("adapt");
  ASSERT_NE(a, nullptr);
  for (const Kind& k : kinds(40000, 3)) {
    const std::string name = k.name;
    if (name != "prices" && name != "temperatures" && name != "geo" && name != "integers") continue;
    const size_t m = roundTrip(*a, k.bytes);
    EXPECT_GT(static_cast<double>(k.bytes.size()) / static_cast<double>(m), 2.5) << name;
  }
}

TEST(CompressAdapt, CorruptAndTruncatedAreRefused) {
  std::vector<std::vector<uint8_t>> inputs;
  for (const Kind& k : kinds(40000, 5)) {
    if (k.type == DataType::kFloat64) inputs.push_back(k.bytes);
  }
  inputs.push_back(edgeDecimals(3000));
  for (const Codec* c : newCodecs()) {
    SCOPED_TRACE(c->name());
    for (const auto& in : inputs) {
      auto enc = c->newState();
      std::vector<uint8_t> msg(Codec::maxCompressedSize(in.size()));
      size_t m = 0;
      ASSERT_EQ(c->compress(*enc, in.data(), in.size(), msg.data(), msg.size(), &m), kOk);
      msg.resize(m);
      std::vector<uint8_t> out(in.size());
      size_t n = 0;
      for (size_t cut = 0; cut < m; cut += 1 + cut / 3) {
        auto dec = c->newState();
        EXPECT_NE(c->decompress(*dec, msg.data(), cut, out.data(), out.size(), &n), kOk) << cut;
      }
      std::mt19937 rng(static_cast<uint32_t>(m));
      for (int t = 0; t < 60; ++t) {
        std::vector<uint8_t> f = msg;
        const size_t at = rng() % m;
        f[at] ^= static_cast<uint8_t>(1u << (rng() % 8));
        if (t % 3 == 0) f[at] = static_cast<uint8_t>(rng());
        auto dec = c->newState();
        const int rc = c->decompress(*dec, f.data(), f.size(), out.data(), out.size(), &n);
        if (rc == kOk) {
          EXPECT_TRUE(n == in.size() && std::memcmp(out.data(), in.data(), n) == 0)
              << "byte " << at << " changed and decoded to wrong data";
        }
      }
    }
  }
}

}  // namespace
}  // namespace ccmpi::compress
