// libFuzzer target for the "adapt-fast" codec's decoder (see codec_fuzz.h).
#define CCMPI_FUZZ_CODEC "adapt-fast"
#include "codec_fuzz.h"
