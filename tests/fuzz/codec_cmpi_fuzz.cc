// libFuzzer target for the "cmpi" codec's decoder (see codec_fuzz.h).
#define CCMPI_FUZZ_CODEC "cmpi"
#include "codec_fuzz.h"
