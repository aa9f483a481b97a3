// libFuzzer target for the "adapt" codec's decoder (see codec_fuzz.h).
#define CCMPI_FUZZ_CODEC "adapt"
#include "codec_fuzz.h"
