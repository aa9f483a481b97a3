#pragma once
// Length-limited canonical Huffman codes over small alphabets (the spx codec codes the
// bit length of each residual, 0..64, and a zero-run token with one). Codes are canonical (shorter
// codes first, ties by symbol) and emitted bit-reversed, so an LSB-first reader decodes them with
// one table lookup of `maxLen` bits.
#include <cstddef>
#include <cstdint>

namespace ccmpi::compress {

constexpr unsigned kHuffMaxSymbols = 66;
constexpr unsigned kHuffMaxLen = 12;

// Code lengths (<= maxLen) for the symbols with non-zero counts; unused symbols get 0.
// A lone used symbol gets length 1.
void huffmanLengths(const uint32_t* counts, unsigned nsym, unsigned maxLen, uint8_t* lens);

// Bit-reversed canonical codes for `lens` (which must satisfy Kraft's inequality).
void huffmanCodes(const uint8_t* lens, unsigned nsym, uint16_t* codes);

// Decode table of 2^tableBits entries, entry = (symbol << 4) | length, 0 where no code
// matches (corrupt input). tableBits >= the longest length. False if the lengths are
// over-subscribed (not a prefix code) or out of range.
bool huffmanDecodeTable(const uint8_t* lens, unsigned nsym, unsigned tableBits, uint16_t* table);

}  // namespace ccmpi::compress
