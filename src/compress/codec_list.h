#pragma once
// The codec singletons (one function per codec file); codec.cc builds the table from them.
#include "compress/codec.h"

namespace ccmpi::compress {

const Codec& rawCodec();      // codec_raw.cc
const Codec& cmpiCodec();     // codec_cmpi.cc
const Codec& fpcCodec();      // codec_fpc.cc
const Codec& spxCodec();      // codec_spx.cc
const Codec& spxFastCodec();  // codec_spx_fast.cc

// Wire ids (never reuse a number).
enum CodecId : uint8_t { kIdRaw = 1, kIdCmpi = 2, kIdFpc = 3, kIdSpx = 4, kIdSpxFast = 5 };

}  // namespace ccmpi::compress
