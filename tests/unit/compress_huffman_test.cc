// Huffman code construction used by spx: length limits, prefix property, decode table.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "compress/huffman.h"

namespace ccmpi::compress {
namespace {

// Kraft sum in units of 2^-kHuffMaxLen.
uint32_t kraft(const uint8_t* lens, unsigned n) {
  uint32_t s = 0;
  for (unsigned i = 0; i < n; ++i) {
    if (lens[i]) s += 1u << (kHuffMaxLen - lens[i]);
  }
  return s;
}

TEST(CompressHuffman, CompleteCodesWithinLimit) {
  std::mt19937 rng(1);
  for (int round = 0; round < 200; ++round) {
    uint32_t counts[kHuffMaxSymbols] = {};
    const unsigned used = 2 + rng() % (kHuffMaxSymbols - 1);
    for (unsigned i = 0; i < used; ++i) counts[rng() % kHuffMaxSymbols] = 1 + (rng() % 100000);
    uint8_t lens[kHuffMaxSymbols];
    huffmanLengths(counts, kHuffMaxSymbols, kHuffMaxLen, lens);
    unsigned nonzero = 0;
    for (unsigned s = 0; s < kHuffMaxSymbols; ++s) {
      EXPECT_EQ(lens[s] != 0, counts[s] != 0);
      EXPECT_LE(lens[s], kHuffMaxLen);
      nonzero += counts[s] != 0;
    }
    if (nonzero >= 2) {
      EXPECT_EQ(kraft(lens, kHuffMaxSymbols), 1u << kHuffMaxLen);
    }
  }
}

TEST(CompressHuffman, FibonacciCountsAreLimited) {
  // Fibonacci counts give the deepest trees; the limit must hold anyway.
  uint32_t counts[kHuffMaxSymbols] = {};
  uint32_t a = 1, b = 1;
  for (unsigned s = 0; s < 40; ++s) {
    counts[s] = a;
    const uint32_t c = a + b;
    a = b;
    b = c;
  }
  uint8_t lens[kHuffMaxSymbols];
  huffmanLengths(counts, kHuffMaxSymbols, kHuffMaxLen, lens);
  for (unsigned s = 0; s < 40; ++s) EXPECT_LE(lens[s], kHuffMaxLen);
  EXPECT_EQ(kraft(lens, kHuffMaxSymbols), 1u << kHuffMaxLen);
}

TEST(CompressHuffman, DecodeTableInvertsCodes) {
  uint32_t counts[kHuffMaxSymbols] = {};
  for (unsigned s = 0; s < 20; ++s) counts[s * 3] = 1 + s * s * 7;
  uint8_t lens[kHuffMaxSymbols];
  huffmanLengths(counts, kHuffMaxSymbols, kHuffMaxLen, lens);
  uint16_t codes[kHuffMaxSymbols];
  huffmanCodes(lens, kHuffMaxSymbols, codes);
  std::vector<uint16_t> table(1u << kHuffMaxLen);
  ASSERT_TRUE(huffmanDecodeTable(lens, kHuffMaxSymbols, kHuffMaxLen, table.data()));
  for (unsigned s = 0; s < kHuffMaxSymbols; ++s) {
    if (!lens[s]) continue;
    for (unsigned hi = 0; hi < 4; ++hi) {
      const unsigned e = table[(codes[s] | (hi << lens[s])) & ((1u << kHuffMaxLen) - 1)];
      EXPECT_EQ(e >> 4, s);
      EXPECT_EQ(e & 15, lens[s]);
    }
  }
  // A lone symbol gets a 1-bit code; the other half of the table is invalid.
  uint32_t one[kHuffMaxSymbols] = {};
  one[7] = 5;
  huffmanLengths(one, kHuffMaxSymbols, kHuffMaxLen, lens);
  EXPECT_EQ(lens[7], 1);
  ASSERT_TRUE(huffmanDecodeTable(lens, kHuffMaxSymbols, 1, table.data()));
  EXPECT_EQ(table[0] >> 4, 7u);
  EXPECT_EQ(table[1], 0u);
  // Over-subscribed lengths are rejected.
  uint8_t bad[kHuffMaxSymbols] = {1, 1, 1};
  EXPECT_FALSE(huffmanDecodeTable(bad, kHuffMaxSymbols, 1, table.data()));
}

}  // namespace
}  // namespace ccmpi::compress
