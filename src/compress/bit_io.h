#pragma once
// Bit-level writers and readers for the codecs.
//
// Writers keep pending bits in a register and store whole 8-byte words while there is
// room, byte by byte near the end of their buffer; output that does not fit is dropped
// and flagged (the codec then stores the message raw). Readers address the
// input by bit position and never touch a byte outside [data, data + bytes): near the end
// they load byte by byte and pad with zeros, and callers check `overrun()` (more bits
// consumed than exist) before trusting a result.
//
// Msb*: big-endian bit order (first bit = most significant bit of the first byte), used
// by the cmpi codec so a message reads as the paper's Figure 1 draws it.
// Lsb*: little-endian bit order (first bit = bit 0 of the first byte), used by spx.
// Readers for the LSB order are spx's own loops plus peekLsb64() near buffer ends.
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ccmpi::compress {

inline uint64_t load64le(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;  // little-endian host (x86-64, aarch64); see static_assert below
}
inline void store64le(uint8_t* p, uint64_t v) {
  std::memcpy(p, &v, 8);
}
inline uint64_t load64be(const uint8_t* p) {
  return __builtin_bswap64(load64le(p));
}
inline void store64be(uint8_t* p, uint64_t v) {
  store64le(p, __builtin_bswap64(v));
}

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "codecs assume a little-endian host");

// Writes the `len` low-order bytes of the 8-byte little-endian image `v` at p, staying
// inside [p, end); returns false (writing nothing past end) if they do not fit.
inline bool storeTail(uint8_t* p, const uint8_t* end, uint64_t v, size_t len) {
  bool ok = true;
  if (p + len > end) {
    len = end > p ? static_cast<size_t>(end - p) : 0;
    ok = false;
  }
  for (size_t i = 0; i < len; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
  return ok;
}

// Big-endian bit writer into [p, p + cap). put(): len in [1, 64], bits < 2^len. Output
// that does not fit sets overflow() and is dropped; nothing is written past the end.
class MsbWriter {
 public:
  MsbWriter(uint8_t* p, size_t cap) : start_(p), p_(p), end_(p + cap) {}
  void put(uint64_t bits, unsigned len) {
    acc_ = (acc_ << len) | bits;
    n_ += len;
    if (n_ >= 64) {
      n_ -= 64;
      const uint64_t w = static_cast<uint64_t>(acc_ >> n_);
      if (p_ + 8 <= end_) {
        store64be(p_, w);
      } else {
        overflow_ |= !storeTail(p_, end_, __builtin_bswap64(w), 8);
      }
      p_ += 8;
    }
  }
  // Pads with zero bits to a byte boundary and writes the rest; returns bytes written.
  size_t finish() {
    if (n_ > 0) {
      const uint64_t left = static_cast<uint64_t>(acc_) << (64 - n_);
      const size_t bytes = (n_ + 7) / 8;
      overflow_ |= !storeTail(p_, end_, __builtin_bswap64(left), bytes);
      p_ += bytes;
      n_ = 0;
    }
    return static_cast<size_t>(p_ - start_);
  }
  bool overflow() const { return overflow_; }

 private:
  uint8_t* start_;
  uint8_t* p_;
  const uint8_t* end_;
  unsigned __int128 acc_ = 0;
  unsigned n_ = 0;  // pending bits in the low end of acc_, < 64 between calls
  bool overflow_ = false;
};

// Big-endian bit reader.
class MsbReader {
 public:
  MsbReader(const uint8_t* data, size_t bytes) : data_(data), bytes_(bytes) {}
  // The next 64 bits (zeros past the end), without consuming them.
  uint64_t peek64() const {
    const size_t byte = pos_ >> 3;
    const unsigned r = pos_ & 7;
    uint64_t w;
    if (byte + 9 <= bytes_) {
      w = load64be(data_ + byte);
      if (r) w = (w << r) | (data_[byte + 8] >> (8 - r));
      return w;
    }
    w = 0;
    for (size_t i = 0; i < 9; ++i) {
      const uint64_t b = byte + i < bytes_ ? data_[byte + i] : 0;
      if (i < 8)
        w |= b << (56 - 8 * i);
      else if (r)
        w = (w << r) | (b >> (8 - r));
    }
    return w;
  }
  void skip(unsigned bits) { pos_ += bits; }
  uint64_t pos() const { return pos_; }
  bool overrun() const { return pos_ > static_cast<uint64_t>(bytes_) * 8; }
  // True if everything was consumed up to the last byte's zero padding.
  bool atPaddedEnd() const {
    if (overrun() || (pos_ + 7) / 8 != bytes_) return false;
    const unsigned r = pos_ & 7;
    return r == 0 || (data_[bytes_ - 1] & ((1u << (8 - r)) - 1)) == 0;
  }

 private:
  const uint8_t* data_;
  size_t bytes_;
  uint64_t pos_ = 0;
};

// Little-endian bit writer into [p, p + cap). put(): len <= 64 - pending(), bits < 2^len;
// flush() leaves fewer than 8 pending bits. Output that does not fit sets overflow().
class LsbWriter {
 public:
  LsbWriter(uint8_t* p, size_t cap) : start_(p), p_(p), end_(p + cap) {}
  void put(uint64_t bits, unsigned len) {
    acc_ |= bits << n_;
    n_ += len;
  }
  void flush() {
    const unsigned bytes = n_ >> 3;
    if (p_ + 8 <= end_) {
      store64le(p_, acc_);
    } else {
      overflow_ |= !storeTail(p_, end_, acc_, bytes);
    }
    p_ += bytes;
    acc_ = bytes == 8 ? 0 : acc_ >> (8 * bytes);
    n_ &= 7;
  }
  // Writes the last partial byte; returns bytes written.
  size_t finish() {
    flush();
    if (n_) {
      overflow_ |= !storeTail(p_, end_, acc_, 1);
      ++p_;
      n_ = 0;
      acc_ = 0;
    }
    return static_cast<size_t>(p_ - start_);
  }
  bool overflow() const { return overflow_; }

 private:
  uint8_t* start_;
  uint8_t* p_;
  const uint8_t* end_;
  uint64_t acc_ = 0;
  unsigned n_ = 0;
  bool overflow_ = false;
};

// The 64 bits at bit position `pos` of data[0..bytes), LSB-first, zeros past the end.
inline uint64_t peekLsb64(const uint8_t* data, size_t bytes, uint64_t pos) {
  const size_t byte = static_cast<size_t>(pos >> 3);
  const unsigned r = pos & 7;
  if (byte + 9 <= bytes) {
    const uint64_t w = load64le(data + byte) >> r;
    return r ? w | uint64_t{data[byte + 8]} << (64 - r) : w;
  }
  uint64_t w = 0;
  for (size_t i = 0; i < 8; ++i) {
    if (byte + i < bytes) w |= uint64_t{data[byte + i]} << (8 * i);
  }
  w >>= r;
  if (r && byte + 8 < bytes) w |= uint64_t{data[byte + 8]} << (64 - r);
  return w;
}

}  // namespace ccmpi::compress
