// libFuzzer target for the "spx-fast" codec's decoder (see codec_fuzz.h).
#define CCMPI_FUZZ_CODEC "spx-fast"
#include "codec_fuzz.h"
