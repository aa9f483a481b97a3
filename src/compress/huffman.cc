// Huffman code construction: the two-queue method on leaves sorted by count, then, if a
// code is longer than allowed, counts are halved (kept >= 1) and the tree rebuilt. With
// at most 65 symbols this terminates after a few rounds at worst (equal counts give a
// depth of 7).
#include "compress/huffman.h"

#include <algorithm>
#include <cstring>

namespace ccmpi::compress {
namespace {

// One Huffman tree over the used symbols; writes depths into lens. Returns max depth.
unsigned buildTree(const uint64_t* counts, const unsigned* syms, unsigned m, uint8_t* lens) {
  // Nodes 0..m-1 are leaves (ascending count), m.. internal nodes in creation order
  // (their weights are non-decreasing, which is what makes two queues enough).
  uint64_t weight[2 * kHuffMaxSymbols];
  unsigned parent[2 * kHuffMaxSymbols];
  for (unsigned i = 0; i < m; ++i) weight[i] = counts[i];
  unsigned leaf = 0, node = m, next = m;
  auto takeMin = [&]() {
    if (leaf < m && (node >= next || weight[leaf] <= weight[node])) return leaf++;
    return node++;
  };
  for (unsigned k = 0; k + 1 < m; ++k) {
    const unsigned a = takeMin();
    const unsigned b = takeMin();
    weight[next] = weight[a] + weight[b];
    parent[a] = parent[b] = next;
    ++next;
  }
  const unsigned root = next - 1;
  unsigned depth[2 * kHuffMaxSymbols];
  depth[root] = 0;
  unsigned maxDepth = 0;
  for (unsigned i = root; i-- > 0;) {
    depth[i] = depth[parent[i]] + 1;
  }
  for (unsigned i = 0; i < m; ++i) {
    lens[syms[i]] = static_cast<uint8_t>(depth[i]);
    maxDepth = std::max(maxDepth, depth[i]);
  }
  return maxDepth;
}

}  // namespace

void huffmanLengths(const uint32_t* counts, unsigned nsym, unsigned maxLen, uint8_t* lens) {
  std::memset(lens, 0, nsym);
  unsigned syms[kHuffMaxSymbols];
  unsigned m = 0;
  for (unsigned s = 0; s < nsym; ++s) {
    if (counts[s]) syms[m++] = s;
  }
  if (m == 0) return;
  if (m == 1) {
    lens[syms[0]] = 1;
    return;
  }
  std::stable_sort(syms, syms + m, [&](unsigned a, unsigned b) { return counts[a] < counts[b]; });
  uint64_t c[kHuffMaxSymbols];
  for (unsigned i = 0; i < m; ++i) c[i] = counts[syms[i]];
  while (buildTree(c, syms, m, lens) > maxLen) {
    for (unsigned i = 0; i < m; ++i) c[i] = (c[i] >> 1) | 1;  // stays sorted, stays >= 1
  }
}

void huffmanCodes(const uint8_t* lens, unsigned nsym, uint16_t* codes) {
  unsigned countOf[kHuffMaxLen + 2] = {};
  for (unsigned s = 0; s < nsym; ++s) countOf[lens[s]]++;
  countOf[0] = 0;
  unsigned next[kHuffMaxLen + 2] = {};
  unsigned code = 0;
  for (unsigned len = 1; len <= kHuffMaxLen; ++len) {
    code = (code + countOf[len - 1]) << 1;
    next[len] = code;
  }
  for (unsigned s = 0; s < nsym; ++s) {
    const unsigned len = lens[s];
    codes[s] = 0;
    if (len == 0) continue;
    unsigned c = next[len]++, rev = 0;
    for (unsigned b = 0; b < len; ++b) rev |= ((c >> b) & 1u) << (len - 1 - b);
    codes[s] = static_cast<uint16_t>(rev);
  }
}

bool huffmanDecodeTable(const uint8_t* lens, unsigned nsym, unsigned tableBits, uint16_t* table) {
  if (tableBits > kHuffMaxLen) return false;
  // Kraft check in units of 2^-tableBits.
  uint32_t used = 0;
  for (unsigned s = 0; s < nsym; ++s) {
    if (lens[s] > tableBits) return false;
    if (lens[s]) used += 1u << (tableBits - lens[s]);
  }
  if (used > (1u << tableBits)) return false;
  std::memset(table, 0, sizeof(uint16_t) << tableBits);
  uint16_t codes[kHuffMaxSymbols];
  huffmanCodes(lens, nsym, codes);
  for (unsigned s = 0; s < nsym; ++s) {
    const unsigned len = lens[s];
    if (!len) continue;
    const uint16_t entry = static_cast<uint16_t>((s << 4) | len);
    for (unsigned hi = 0; hi < (1u << (tableBits - len)); ++hi) {
      table[codes[s] | (hi << len)] = entry;
    }
  }
  return true;
}

}  // namespace ccmpi::compress
