// libFuzzer target for the "spx" codec's decoder (see codec_fuzz.h).
#define CCMPI_FUZZ_CODEC "spx"
#include "codec_fuzz.h"
