// base/: SipHash test vector, tunable parsing, error codes and messages.
#include <gtest/gtest.h>

#include <cstdlib>

#include "base/error.h"
#include "base/siphash.h"
#include "base/tunables.h"

using namespace ccmpi;

TEST(SipHash, ReferenceVector) {
  // The reference vector of the SipHash paper: key 00..0f, message 00..0e.
  SipKey k;
  ASSERT_TRUE(parseSipKey("07060504030201000f0e0d0c0b0a0908", &k));
  EXPECT_EQ(k.k0, 0x0706050403020100ull);
  unsigned char msg[15];
  for (int i = 0; i < 15; ++i) msg[i] = static_cast<unsigned char>(i);
  EXPECT_EQ(siphash24(k, msg, sizeof msg), 0xa129ca6149be45e5ull);
}

TEST(SipHash, KeyParsing) {
  SipKey k;
  EXPECT_FALSE(parseSipKey("123", &k));
  EXPECT_FALSE(parseSipKey("zz060504030201000f0e0d0c0b0a0908", &k));
  EXPECT_FALSE(parseSipKey(nullptr, &k));
  char out[33];
  k = {0xdeadbeefULL, 1};
  formatSipKey(k, out);
  SipKey back;
  ASSERT_TRUE(parseSipKey(out, &back));
  EXPECT_EQ(back.k0, k.k0);
  EXPECT_EQ(back.k1, k.k1);
}

TEST(Tunables, ParseSizesAndBools) {
  uint64_t v = 0;
  EXPECT_TRUE(parseSize("4096", &v));
  EXPECT_EQ(v, 4096u);
  EXPECT_TRUE(parseSize("64k", &v));
  EXPECT_EQ(v, 65536u);
  EXPECT_TRUE(parseSize("2M", &v));
  EXPECT_EQ(v, 2u << 20);
  EXPECT_TRUE(parseSize("1GiB", &v));
  EXPECT_EQ(v, 1ull << 30);
  EXPECT_FALSE(parseSize("", &v));
  EXPECT_FALSE(parseSize("-1", &v));
  EXPECT_FALSE(parseSize("12q", &v));
  bool b = false;
  EXPECT_TRUE(parseBool("on", &b));
  EXPECT_TRUE(b);
  EXPECT_TRUE(parseBool("No", &b));
  EXPECT_FALSE(b);
  EXPECT_FALSE(parseBool("maybe", &b));
}

TEST(Tunables, EnvironmentOverridesDefault) {
  static Tunable<uint64_t> t("CCMPI_TEST_ONLY_KNOB", 7, "test knob");
  unsetenv("CCMPI_TEST_ONLY_KNOB");
  t.reload();
  EXPECT_EQ(t.get(), 7u);
  EXPECT_FALSE(t.fromEnv());
  setenv("CCMPI_TEST_ONLY_KNOB", "3k", 1);
  t.reload();
  EXPECT_EQ(t.get(), 3072u);
  EXPECT_TRUE(t.fromEnv());
  setenv("CCMPI_TEST_ONLY_KNOB", "garbage", 1);
  t.reload();
  EXPECT_EQ(t.get(), 7u);  // invalid values fall back to the default (with a message)
  unsetenv("CCMPI_TEST_ONLY_KNOB");
  bool found = false;
  for (TunableBase* x : allTunables()) found |= std::string(x->name()) == "CCMPI_TEST_ONLY_KNOB";
  EXPECT_TRUE(found);
}

TEST(Errors, CodesCarryClassAndMessage) {
  setErrorCause(MPI_ERR_RANK, "rank %d out of range", 9);
  const int code = makeErrorCode(MPI_ERR_RANK, "MPI_Send", "");
  EXPECT_EQ(errorClassOf(code), MPI_ERR_RANK);
  EXPECT_EQ(errorString(code), "MPI_Send: MPI_ERR_RANK: rank 9 out of range");
  EXPECT_TRUE(lastErrorCause().empty());
  const int code2 = makeErrorCode(MPI_ERR_TAG, "MPI_Recv", "tag -4");
  EXPECT_NE(code, code2);
  EXPECT_EQ(errorString(code2), "MPI_Recv: MPI_ERR_TAG: tag -4");
  EXPECT_EQ(errorClassOf(MPI_ERR_TRUNCATE), MPI_ERR_TRUNCATE);
  EXPECT_NE(errorString(MPI_ERR_TRUNCATE).find("MPI_ERR_TRUNCATE"), std::string::npos);
}

TEST(Errors, UserClassesAndCodes) {
  int cls = 0, code = 0;
  ASSERT_EQ(addErrorClass(&cls), MPI_SUCCESS);
  EXPECT_GT(cls, MPI_ERR_ERRHANDLER);
  ASSERT_EQ(addErrorCode(cls, &code), MPI_SUCCESS);
  EXPECT_EQ(errorClassOf(code), cls);
  addErrorString(code, "my error");
  EXPECT_EQ(errorString(code), "my error");
  EXPECT_GE(lastUsedCode(), code);
}
