// ccmpi-codec: runs the message codecs of src/compress on files.
//
//   ccmpi-codec list
//   ccmpi-codec bench [--codec NAME] [--repeat N] [--median] [--chunk BYTES] [--float32] FILE...
//   ccmpi-codec compress --codec NAME [--float32] IN OUT
//   ccmpi-codec decompress IN OUT
//
// bench reads each file as raw little-endian doubles (any length), codes it as one
// message with a fresh state (or, with --chunk, as a sequence of messages of that size
// on one channel state), checks the round trip bit for bit, and prints per file
//   file=F codec=C ratio=R compress_gbps=X decompress_gbps=Y
// then per codec
//   geomean_ratio=G codec=C compress_gbps=X decompress_gbps=Y
// (speeds there are total bytes / total time over the files). Ratio = input bytes /
// output bytes, headers included. Speeds are GB/s (10^9 bytes of input per second), the
// best of the runs, or the median with --median. By default each file is run at least 20
// times and for at least 0.5 s (at most 100,000 runs), so that a short message is timed
// over enough runs to see the processor undisturbed; --repeat N runs exactly N times.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include <unistd.h>

#include "compress/codec.h"
#include "compress/frame.h"

namespace {

using ccmpi::compress::Codec;
using ccmpi::compress::DataType;

int usage() {
  std::fprintf(stderr,
               "usage: ccmpi-codec list\n"
               "       ccmpi-codec bench [--codec NAME] [--repeat N] [--median] [--chunk BYTES]"
               " [--float32] FILE...\n"
               "       ccmpi-codec compress --codec NAME [--float32] IN OUT\n"
               "       ccmpi-codec decompress IN OUT\n");
  return 2;
}

bool readFile(const std::string& path, std::vector<uint8_t>* out) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    std::fprintf(stderr, "ccmpi-codec: cannot open %s: %s\n", path.c_str(), std::strerror(errno));
    return false;
  }
  out->clear();
  uint8_t buf[1 << 16];
  size_t got;
  while ((got = std::fread(buf, 1, sizeof(buf), f)) > 0) out->insert(out->end(), buf, buf + got);
  const bool ok = !std::ferror(f);
  std::fclose(f);
  if (!ok) std::fprintf(stderr, "ccmpi-codec: error reading %s\n", path.c_str());
  return ok;
}

bool writeFile(const std::string& path, const uint8_t* data, size_t n) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) {
    std::fprintf(stderr, "ccmpi-codec: cannot create %s: %s\n", path.c_str(), std::strerror(errno));
    return false;
  }
  const bool ok = std::fwrite(data, 1, n, f) == n && std::fclose(f) == 0;
  if (!ok) std::fprintf(stderr, "ccmpi-codec: error writing %s\n", path.c_str());
  return ok;
}

const Codec* codecOrDie(const char* name) {
  const Codec* c = ccmpi::compress::findCodec(name);
  if (!c) {
    std::fprintf(stderr, "ccmpi-codec: unknown codec '%s' (try 'ccmpi-codec list')\n", name);
  }
  return c;
}

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct BenchOptions {
  int repeat = 0;  // 0: at least kMinRuns and kMinSeconds
  bool median = false;
  size_t chunk = 0;  // 0: whole file is one message
  DataType type = DataType::kFloat64;
};

struct BenchResult {
  double ratio = 0, compressSeconds = 0, decompressSeconds = 0;
  size_t bytes = 0;
  bool ok = false;
};

double pick(std::vector<double>& t, bool median) {
  std::sort(t.begin(), t.end());
  return median ? t[t.size() / 2] : t.front();
}

BenchResult benchOne(const Codec& codec, const std::vector<uint8_t>& data, const BenchOptions& o) {
  BenchResult res;
  const size_t chunk = o.chunk ? o.chunk : std::max<size_t>(data.size(), 1);
  std::vector<size_t> offs, lens;
  for (size_t p = 0; p < data.size() || (p == 0 && offs.empty()); p += chunk) {
    offs.push_back(p);
    lens.push_back(std::min(chunk, data.size() - p));
    if (data.empty()) break;
  }
  std::vector<uint8_t> comp(data.size() + offs.size() * ccmpi::compress::kMaxOverhead);
  std::vector<size_t> compOff(offs.size()), compLen(offs.size());
  std::vector<uint8_t> back(data.size() + 1);
  auto enc = codec.newState();
  auto dec = codec.newState();
  std::vector<double> tc, td;
  size_t total = 0;
  constexpr int kMinRuns = 20, kMaxRuns = 100000;
  constexpr double kMinSeconds = 0.5;
  const double start = now();
  for (int rep = 0;
       o.repeat > 0 ? rep < o.repeat
                    : rep < kMinRuns || (rep < kMaxRuns && now() - start < kMinSeconds);
       ++rep) {
    enc->reset();
    dec->reset();
    double t0 = now();
    size_t pos = 0;
    for (size_t m = 0; m < offs.size(); ++m) {
      size_t outBytes = 0;
      const int rc = codec.compress(*enc, data.data() + offs[m], lens[m], comp.data() + pos,
                                    comp.size() - pos, &outBytes, o.type);
      if (rc != 0) {
        std::fprintf(stderr, "ccmpi-codec: %s: compress failed: %s (%s)\n", codec.name(),
                     ccmpi::compress::statusName(rc), enc->lastError());
        return res;
      }
      compOff[m] = pos;
      compLen[m] = outBytes;
      pos += outBytes;
    }
    double t1 = now();
    for (size_t m = 0; m < offs.size(); ++m) {
      size_t outBytes = 0;
      const int rc = codec.decompress(*dec, comp.data() + compOff[m], compLen[m],
                                      back.data() + offs[m], back.size() - offs[m], &outBytes);
      if (rc != 0 || outBytes != lens[m]) {
        std::fprintf(stderr, "ccmpi-codec: %s: decompress failed: %s (%s)\n", codec.name(),
                     ccmpi::compress::statusName(rc), dec->lastError());
        return res;
      }
    }
    double t2 = now();
    if (!data.empty() && std::memcmp(back.data(), data.data(), data.size()) != 0) {
      std::fprintf(stderr, "ccmpi-codec: %s: round trip mismatch\n", codec.name());
      return res;
    }
    tc.push_back(t1 - t0);
    td.push_back(t2 - t1);
    total = pos;
  }
  res.ratio = static_cast<double>(data.size()) / static_cast<double>(total);
  res.compressSeconds = pick(tc, o.median);
  res.decompressSeconds = pick(td, o.median);
  res.bytes = data.size();
  res.ok = true;
  return res;
}

int bench(int argc, char** argv) {
  BenchOptions o;
  std::vector<const Codec*> codecs;
  std::vector<std::string> files;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* what) -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "ccmpi-codec: %s needs %s\n", a.c_str(), what);
        return nullptr;
      }
      return argv[++i];
    };
    if (a == "--codec") {
      const char* v = value("a codec name");
      if (!v) return 2;
      const Codec* c = codecOrDie(v);
      if (!c) return 2;
      codecs.push_back(c);
    } else if (a == "--repeat") {
      const char* v = value("a count");
      if (!v) return 2;
      o.repeat = std::atoi(v);
      if (o.repeat < 1) return std::fprintf(stderr, "ccmpi-codec: bad --repeat\n"), 2;
    } else if (a == "--chunk") {
      const char* v = value("a byte count");
      if (!v) return 2;
      o.chunk = std::strtoull(v, nullptr, 10);
      if (o.chunk == 0) return std::fprintf(stderr, "ccmpi-codec: bad --chunk\n"), 2;
    } else if (a == "--median") {
      o.median = true;
    } else if (a == "--float32") {
      o.type = DataType::kFloat32;
    } else if (a.size() > 1 && a[0] == '-') {
      std::fprintf(stderr, "ccmpi-codec: unknown option %s\n", a.c_str());
      return usage();
    } else {
      files.push_back(a);
    }
  }
  if (files.empty()) return usage();
  if (codecs.empty()) codecs = ccmpi::compress::allCodecs();
  std::vector<std::vector<uint8_t>> data(files.size());
  for (size_t f = 0; f < files.size(); ++f) {
    if (!readFile(files[f], &data[f])) return 1;
  }
  for (const Codec* c : codecs) {
    double logSum = 0, bytes = 0, tc = 0, td = 0;
    for (size_t f = 0; f < files.size(); ++f) {
      const BenchResult r = benchOne(*c, data[f], o);
      if (!r.ok) return 1;
      std::printf("file=%s codec=%s ratio=%.4f compress_gbps=%.3f decompress_gbps=%.3f\n",
                  files[f].c_str(), c->name(), r.ratio, r.bytes / r.compressSeconds / 1e9,
                  r.bytes / r.decompressSeconds / 1e9);
      logSum += std::log(r.ratio);
      bytes += static_cast<double>(r.bytes);
      tc += r.compressSeconds;
      td += r.decompressSeconds;
    }
    std::printf("geomean_ratio=%.4f codec=%s compress_gbps=%.3f decompress_gbps=%.3f\n",
                std::exp(logSum / static_cast<double>(files.size())), c->name(), bytes / tc / 1e9,
                bytes / td / 1e9);
    std::fflush(stdout);
  }
  return 0;
}

int compressFile(int argc, char** argv) {
  const Codec* codec = nullptr;
  DataType type = DataType::kFloat64;
  std::vector<std::string> pos;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--codec" && i + 1 < argc) {
      codec = codecOrDie(argv[++i]);
      if (!codec) return 2;
    } else if (a == "--float32") {
      type = DataType::kFloat32;
    } else if (a.size() > 1 && a[0] == '-') {
      std::fprintf(stderr, "ccmpi-codec: unknown option %s\n", a.c_str());
      return usage();
    } else {
      pos.push_back(a);
    }
  }
  if (!codec || pos.size() != 2) return usage();
  std::vector<uint8_t> in;
  if (!readFile(pos[0], &in)) return 1;
  std::vector<uint8_t> out(Codec::maxCompressedSize(in.size()));
  auto st = codec->newState();
  size_t n = 0;
  const int rc = codec->compress(*st, in.data(), in.size(), out.data(), out.size(), &n, type);
  if (rc != 0) {
    std::fprintf(stderr, "ccmpi-codec: compress failed: %s (%s)\n", ccmpi::compress::statusName(rc),
                 st->lastError());
    return 1;
  }
  return writeFile(pos[1], out.data(), n) ? 0 : 1;
}

int decompressFile(int argc, char** argv) {
  if (argc != 2) return usage();
  std::vector<uint8_t> in;
  if (!readFile(argv[0], &in)) return 1;
  ccmpi::compress::FrameHeader h;
  if (!ccmpi::compress::parseFrameHeader(in.data(), in.size(), &h)) {
    std::fprintf(stderr, "ccmpi-codec: %s: not a ccmpi-codec message (bad header)\n", argv[0]);
    return 1;
  }
  const Codec* codec = ccmpi::compress::findCodecById(h.codecId);
  if (!codec) {
    std::fprintf(stderr, "ccmpi-codec: %s: unknown codec id %u\n", argv[0], h.codecId);
    return 1;
  }
  // The header's length is not bounded by the coded size (a run of equal values codes to
  // almost nothing: spx reaches 14,000:1 on 190 KB of one value, more on longer runs), so
  // it is checked against what this machine can hold, and a failed allocation is an
  // error, not a crash.
  const uint64_t memory = static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) *
                          static_cast<uint64_t>(sysconf(_SC_PAGE_SIZE));
  if (h.length > memory) {
    std::fprintf(stderr,
                 "ccmpi-codec: %s: original length %llu is more than this machine's memory "
                 "(%llu bytes): not a message ccmpi-codec could have written here\n",
                 argv[0], static_cast<unsigned long long>(h.length),
                 static_cast<unsigned long long>(memory));
    return 1;
  }
  std::vector<uint8_t> out;
  try {
    out.resize(std::max<size_t>(h.length, 1));
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "ccmpi-codec: %s: cannot allocate %llu bytes for the original\n", argv[0],
                 static_cast<unsigned long long>(h.length));
    return 1;
  }
  auto st = codec->newState();
  size_t n = 0;
  const int rc = codec->decompress(*st, in.data(), in.size(), out.data(), h.length, &n);
  if (rc != 0) {
    std::fprintf(stderr, "ccmpi-codec: %s: decompress failed: %s (%s)\n", argv[0],
                 ccmpi::compress::statusName(rc), st->lastError());
    return 1;
  }
  return writeFile(argv[1], out.data(), n) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  const std::string cmd = argv[1];
  if (cmd == "list") {
    for (const Codec* c : ccmpi::compress::allCodecs()) std::printf("%s\n", c->name());
    return 0;
  }
  if (cmd == "bench") return bench(argc - 2, argv + 2);
  if (cmd == "compress") return compressFile(argc - 2, argv + 2);
  if (cmd == "decompress") return decompressFile(argc - 2, argv + 2);
  if (cmd == "-h" || cmd == "--help" || cmd == "help") {
    usage();
    return 0;
  }
  std::fprintf(stderr, "ccmpi-codec: unknown command '%s'\n", cmd.c_str());
  return usage();
}
