// libFuzzer target for the "fpc" codec's decoder (see codec_fuzz.h).
#define CCMPI_FUZZ_CODEC "fpc"
#include "codec_fuzz.h"
