#pragma once
// The codec singletons (one function per codec file); codec.cc builds the table from them.
#include "compress/codec.h"

namespace ccmpi::compress {

const Codec& rawCodec();      // codec_raw.cc
const Codec& cmpiCodec();     // codec_cmpi.cc
const Codec& fpcCodec();      // codec_fpc.cc
const Codec& spxCodec();      // codec_spx.cc
const Codec& spxFastCodec();  // codec_spx_fast.cc
// codec_lz.cc: null when the library was not found at build time.
const Codec* zstdCodec();
const Codec* shuffleZstdCodec();
const Codec* lz4Codec();
const Codec& adaptCodec();      // codec_adapt.cc
const Codec& adaptFastCodec();  // codec_adapt.cc

// Wire ids (never reuse a number).
enum CodecId : uint8_t {
  kIdRaw = 1,
  kIdCmpi = 2,
  kIdFpc = 3,
  kIdSpx = 4,
  kIdSpxFast = 5,
  kIdZstd = 6,
  kIdShuffleZstd = 7,
  kIdLz4 = 8,
  kIdAdapt = 9,
  kIdAdaptFast = 10,
};

}  // namespace ccmpi::compress
