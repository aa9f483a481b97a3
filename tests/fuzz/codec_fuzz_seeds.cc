// Writes a seed corpus for a codec fuzz target: valid messages of that codec (slices of
// the sample messages, special values, zeros, random bytes; assorted sizes, some coded
// with a warmed state) and plain data slices.
//   codec_fuzz_seeds CODEC OUTDIR [SAMPLEDIR]
// Without the sample directory, smooth synthetic data stands in.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "compress/codec.h"

namespace {

using ccmpi::compress::Codec;
using ccmpi::compress::DataType;

void writeFile(const std::filesystem::path& p, const std::vector<uint8_t>& b) {
  std::ofstream f(p, std::ios::binary);
  f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

std::vector<uint8_t> readFile(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)),
                              std::istreambuf_iterator<char>());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: codec_fuzz_seeds CODEC OUTDIR [SAMPLEDIR]\n");
    return 2;
  }
  const Codec* c = ccmpi::compress::findCodec(argv[1]);
  if (!c) {
    std::fprintf(stderr, "codec_fuzz_seeds: unknown codec %s\n", argv[1]);
    return 2;
  }
  const std::filesystem::path out = argv[2];
  std::filesystem::create_directories(out);
  std::vector<std::vector<uint8_t>> sources;
  if (argc > 3) {
    for (const char* f : {"msg_bt.f64", "msg_sp.f64", "msg_sppm.f64", "msg_sweep3d.f64"}) {
      auto b = readFile(std::filesystem::path(argv[3]) / f);
      if (!b.empty()) sources.push_back(std::move(b));
    }
  }
  if (sources.empty()) {
    std::vector<double> v(4096);
    for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.01 * double(i / 5)) + double(i % 5);
    std::vector<uint8_t> b(v.size() * 8);
    std::memcpy(b.data(), v.data(), b.size());
    sources.push_back(b);
  }
  const uint64_t specials[] = {0x7FF8000000000001ull, 0x8000000000000000ull, 0x7FF0000000000000ull,
                               0x0000000000000001ull, 0xFFF0000000000000ull, 0};
  std::vector<uint8_t> special;
  for (int r = 0; r < 8; ++r) {
    for (uint64_t s : specials) {
      special.insert(special.end(), reinterpret_cast<const uint8_t*>(&s),
                     reinterpret_cast<const uint8_t*>(&s) + 8);
    }
  }
  sources.push_back(special);
  // Short decimals (prices with 2 places, two interleaved columns), some special values
  // among them: the decimal path of adapt.
  std::vector<double> dec(3000);
  for (size_t i = 0; i < dec.size(); ++i) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.2f",
                  100.0 + double(i % 2) * 50 + double((i * 7) % 300) / 100);
    dec[i] = i % 97 == 3 ? -0.0 : std::strtod(buf, nullptr);
  }
  std::vector<uint8_t> decBytes(dec.size() * 8);
  std::memcpy(decBytes.data(), dec.data(), decBytes.size());
  sources.push_back(decBytes);
  sources.push_back(std::vector<uint8_t>(2048 * 8 + 24, 0));
  std::mt19937 rng(42);
  std::vector<uint8_t> noise(700);
  for (auto& x : noise) x = static_cast<uint8_t>(rng());
  sources.push_back(noise);

  int count = 0;
  auto emit = [&](const std::vector<uint8_t>& b) {
    writeFile(out / ("seed_" + std::to_string(count++)), b);
  };
  for (size_t s = 0; s < sources.size(); ++s) {
    auto st = c->newState();
    for (size_t len :
         {size_t{0}, size_t{7}, size_t{64}, size_t{803}, size_t{4096}, size_t{17000}}) {
      if (len > sources[s].size()) continue;
      std::vector<uint8_t> in(sources[s].begin(), sources[s].begin() + static_cast<long>(len));
      for (DataType t : {DataType::kFloat64, DataType::kFloat32}) {
        std::vector<uint8_t> msg(Codec::maxCompressedSize(len));
        size_t n = 0;
        if (c->compress(*st, in.data(), len, msg.data(), msg.size(), &n, t) != 0) return 1;
        msg.resize(n);
        emit(msg);
      }
      if (len <= 4096) emit(in);
    }
  }
  std::printf("codec_fuzz_seeds: wrote %d seeds for %s to %s\n", count, c->name(),
              out.string().c_str());
  return 0;
}
