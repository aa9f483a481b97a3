// libFuzzer target: the frame header decoder must never crash or read out of bounds,
// and whatever it accepts must satisfy the limits and re-encode to the same bytes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "transport/frame.h"

using namespace ccmpi::transport;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FrameLimits lim;
  lim.worldSize = 16;
  lim.tagUb = (1 << 30) - 1;
  lim.maxContext = 4096;
  lim.maxEager = 65536;
  FrameHeader h;
  const char* why = nullptr;
  const DecodeStatus st = decodeHeader(data, size, lim, &h, &why);
  if (st == DecodeStatus::kNeedMore && size >= kHeaderBytes) abort();
  if (st == DecodeStatus::kBad && why == nullptr) abort();
  if (st == DecodeStatus::kOk) {
    if (h.src < 0 || h.src >= lim.worldSize) abort();
    if (h.type == FrameType::kEager &&
        (h.payloadLen > lim.maxEager || h.tag < 0 || h.tag > lim.tagUb))
      abort();
    if (h.type == FrameType::kData && h.payloadLen > lim.maxMessage - h.offset) abort();
    unsigned char again[kHeaderBytes];
    encodeHeader(h, again);
    if (memcmp(again, data, kHeaderBytes) != 0) abort();
  }
  return 0;
}
