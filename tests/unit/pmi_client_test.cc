// PMI-1 client against a scripted, Hydra-like server in a thread: PMI_FD (socketpair),
// PMI_PORT with the initack handshake (TCP on 127.0.0.1), singleton mode, and failures.
#include "bootstrap/pmi.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>

#include "bootstrap/pmi_wire.h"

namespace ccmpi::bootstrap {
namespace {

void clearPmiEnv() {
  for (const char* v : {"PMI_FD", "PMI_PORT", "PMI_ID", "PMI_RANK", "PMI_SIZE",
                        "SLURM_STEP_NUM_TASKS", "SLURM_PROCID", "SLURM_MPI_TYPE", "PMIX_RANK",
                        "PMIX_NAMESPACE", "OMPI_COMM_WORLD_SIZE", "SLURM_STEP_ID", "SLURM_NTASKS"})
    unsetenv(v);
}

void writeStr(int fd, const std::string& s) {
  ASSERT_EQ(write(fd, s.data(), s.size()), static_cast<ssize_t>(s.size()));
}

// Serves one client on fd until finalize or EOF, answering as Hydra 4 does. With
// `initack`, expects the PMI_PORT handshake first. Stops early (closing the socket)
// after `maxRequests` requests, to test a process manager that goes away. With `slurm`,
// answers as Slurm 22.05's PMI-1 server does: a request line longer than 1024 bytes is
// dropped (a put answers rc=0 and stores nothing), a missing key answers rc=1; the
// longest request line is kept in *longest.
void serve(int fd, bool initack, int maxRequests = 1000, bool slurm = false,
           std::size_t* longest = nullptr) {
  std::map<std::string, std::string> kvs;
  std::string buffer;
  int served = 0;
  for (;;) {
    std::size_t nl;
    while ((nl = buffer.find('\n')) == std::string::npos) {
      char chunk[4096];
      ssize_t n = read(fd, chunk, sizeof chunk);
      if (n <= 0) {
        close(fd);
        return;
      }
      buffer.append(chunk, static_cast<std::size_t>(n));
    }
    std::string line = buffer.substr(0, nl);
    buffer.erase(0, nl + 1);
    if (longest) *longest = std::max(*longest, line.size() + 1);
    const bool dropped = slurm && line.size() + 1 > 1024;
    if (++served > maxRequests) {
      close(fd);
      return;
    }
    PmiMessage m;
    std::string error;
    ASSERT_TRUE(parsePmiLine(line, &m, &error)) << line;
    std::string reply;
    if (initack) {
      ASSERT_EQ(m.cmd, "initack");
      ASSERT_EQ(*m.find("pmiid"), "5");
      reply = "cmd=initack\ncmd=set size=8\ncmd=set rank=5\ncmd=set debug=0\n";
      initack = false;
    } else if (m.cmd == "init") {
      // Hydra reads the two arguments by position.
      ASSERT_EQ(m.args.size(), 2u);
      ASSERT_EQ(m.args[0].first, "pmi_version");
      ASSERT_EQ(m.args[1].first, "pmi_subversion");
      reply = "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n";
    } else if (m.cmd == "get_maxes") {
      reply = "cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024\n";
    } else if (m.cmd == "get_appnum") {
      reply = "cmd=appnum appnum=3\n";
    } else if (m.cmd == "get_my_kvsname") {
      reply = "cmd=my_kvsname kvsname=kvs_77_0\n";
    } else if (m.cmd == "get_universe_size") {
      reply = "cmd=universe_size size=16\n";
    } else if (m.cmd == "put") {
      ASSERT_EQ(*m.find("kvsname"), "kvs_77_0");
      if (!dropped) kvs[*m.find("key")] = *m.find("value");
      reply = "cmd=put_result rc=0 msg=success\n";
    } else if (m.cmd == "get") {
      auto it = kvs.find(*m.find("key"));
      reply = it == kvs.end() ? "cmd=get_result rc=" + std::string(slurm ? "1" : "-1") +
                                    " msg=key_" + *m.find("key") + "_not_found value=unknown\n"
                              : "cmd=get_result rc=0 msg=success value=" + it->second + "\n";
    } else if (m.cmd == "barrier_in") {
      reply = "cmd=barrier_out\n";
    } else if (m.cmd == "finalize") {
      writeStr(fd, "cmd=finalize_ack\n");
      close(fd);
      return;
    } else {
      FAIL() << "unexpected command " << line;
    }
    writeStr(fd, reply);
  }
}

TEST(PmiClient, Singleton) {
  clearPmiEnv();
  Pmi pmi;
  ASSERT_EQ(pmi.init(), MPI_SUCCESS);
  EXPECT_TRUE(pmi.singleton());
  EXPECT_EQ(pmi.rank(), 0);
  EXPECT_EQ(pmi.size(), 1);
  EXPECT_EQ(pmi.universeSize(), 1);
  EXPECT_EQ(pmi.fd(), -1);
  EXPECT_FALSE(pmi.kvsName().empty());
  EXPECT_EQ(pmi.put("a", "x y=z"), MPI_SUCCESS);
  EXPECT_EQ(pmi.barrier(), MPI_SUCCESS);
  std::string v;
  EXPECT_EQ(pmi.get("a", &v), MPI_SUCCESS);
  EXPECT_EQ(v, "x y=z");
  EXPECT_EQ(pmi.get("b", &v), MPI_ERR_INFO_NOKEY);
  EXPECT_EQ(pmi.put("bad key", "v"), MPI_ERR_ARG);
  EXPECT_NE(pmi.lastError().find("invalid key"), std::string::npos);
  EXPECT_EQ(pmi.finalize(), MPI_SUCCESS);
  EXPECT_NE(pmi.get("a", &v), MPI_SUCCESS);
}

TEST(PmiClient, InheritedFdLikeHydra) {
  clearPmiEnv();
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  std::thread server([&] { serve(sv[1], false); });
  setenv("PMI_FD", std::to_string(sv[0]).c_str(), 1);
  setenv("PMI_RANK", "2", 1);
  setenv("PMI_SIZE", "4", 1);
  {
    Pmi pmi;
    ASSERT_EQ(pmi.init(), MPI_SUCCESS) << pmi.lastError();
    EXPECT_FALSE(pmi.singleton());
    EXPECT_EQ(pmi.rank(), 2);
    EXPECT_EQ(pmi.size(), 4);
    EXPECT_EQ(pmi.appnum(), 3);
    EXPECT_EQ(pmi.universeSize(), 16);
    EXPECT_EQ(pmi.kvsName(), "kvs_77_0");
    EXPECT_EQ(pmi.fd(), sv[0]);
    const std::string value = "host:1234 %=\n\x01";
    EXPECT_EQ(pmi.put("addr-2", value), MPI_SUCCESS);
    EXPECT_EQ(pmi.barrier(), MPI_SUCCESS);
    std::string v;
    EXPECT_EQ(pmi.get("addr-2", &v), MPI_SUCCESS);
    EXPECT_EQ(v, value);
    EXPECT_EQ(pmi.get("addr-9", &v), MPI_ERR_INFO_NOKEY);
    EXPECT_EQ(pmi.put(std::string(64, 'k'), "v"), MPI_ERR_ARG);
    EXPECT_EQ(pmi.put("k", std::string(1024, 'v')), MPI_ERR_ARG);
    EXPECT_EQ(pmi.put("k", std::string(1023, 'v')), MPI_SUCCESS);
    EXPECT_EQ(pmi.finalize(), MPI_SUCCESS);
    EXPECT_EQ(pmi.fd(), -1);
  }
  server.join();
  clearPmiEnv();
}

TEST(PmiClient, LongValuesFitSlurmsRequestLines) {
  clearPmiEnv();
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  std::size_t longest = 0;
  std::thread server([&] { serve(sv[1], false, 1000, true, &longest); });
  setenv("PMI_FD", std::to_string(sv[0]).c_str(), 1);
  setenv("PMI_RANK", "0", 1);
  setenv("PMI_SIZE", "2", 1);
  {
    Pmi pmi;
    ASSERT_EQ(pmi.init(), MPI_SUCCESS) << pmi.lastError();
    // 1000 bytes of which some need escaping (3 bytes each on the wire), and a value that
    // fits one line exactly as before.
    std::string big;
    for (int i = 0; i < 1000; ++i) big += static_cast<char>(i % 7 == 0 ? ' ' : 'a' + i % 26);
    EXPECT_EQ(pmi.put("ccmpi.shm.0", big), MPI_SUCCESS) << pmi.lastError();
    EXPECT_EQ(pmi.put("short", "v"), MPI_SUCCESS);
    EXPECT_EQ(pmi.barrier(), MPI_SUCCESS);
    std::string v;
    EXPECT_EQ(pmi.get("ccmpi.shm.0", &v), MPI_SUCCESS) << pmi.lastError();
    EXPECT_EQ(v, big);
    EXPECT_EQ(pmi.get("short", &v), MPI_SUCCESS);
    EXPECT_EQ(v, "v");
    EXPECT_EQ(pmi.get("missing", &v), MPI_ERR_INFO_NOKEY);  // Slurm's rc=1
    EXPECT_EQ(pmi.finalize(), MPI_SUCCESS);
  }
  server.join();
  EXPECT_LE(longest, kPmiRequestMax);
  clearPmiEnv();
}

// A task of a launched job without a usable PMI fails at init instead of running as a
// singleton; the message names the cause and what to use.
TEST(PmiClient, NoSilentSingletons) {
  struct Case {
    const char* var;
    const char* value;
    const char* expect;
  };
  const Case cases[] = {{"SLURM_STEP_NUM_TASKS", "4", "--mpi=pmi2"},
                        {"OMPI_COMM_WORLD_SIZE", "2", "Open MPI"},
                        {"PMI_SIZE", "3", "PMI_FD"},
                        {"PMIX_RANK", "0", "PMIx"}};
  for (const Case& c : cases) {
    clearPmiEnv();
    setenv(c.var, c.value, 1);
    if (std::string(c.var) == "PMIX_RANK") {
      // No PMIx server to reach: a failed connection, or no PMIx in this build.
      setenv("PMIX_NAMESPACE", "ccmpi-test-no-such-namespace", 1);
      setenv("PMIX_SERVER_URI41", "pmix-server.1;tcp4://127.0.0.1:1", 1);
    }
    Pmi pmi;
    EXPECT_EQ(pmi.init(), MPI_ERR_OTHER) << c.var;
    EXPECT_NE(pmi.lastError().find(c.expect), std::string::npos) << pmi.lastError();
    EXPECT_FALSE(pmi.initialized());
    unsetenv("PMIX_SERVER_URI41");
  }
  // Without SLURM_STEP_NUM_TASKS (older srun): a step's task count.
  clearPmiEnv();
  setenv("SLURM_STEP_ID", "0", 1);
  setenv("SLURM_PROCID", "1", 1);
  setenv("SLURM_NTASKS", "2", 1);
  {
    Pmi pmi;
    EXPECT_EQ(pmi.init(), MPI_ERR_OTHER);
    EXPECT_NE(pmi.lastError().find("task 1 of 2"), std::string::npos) << pmi.lastError();
  }
  clearPmiEnv();
  setenv("SLURM_STEP_NUM_TASKS", "1", 1);  // srun -n 1: a singleton is right
  setenv("SLURM_NTASKS", "8", 1);          // a batch script's environment
  Pmi pmi;
  EXPECT_EQ(pmi.init(), MPI_SUCCESS) << pmi.lastError();
  EXPECT_TRUE(pmi.singleton());
  unsetenv("SLURM_NTASKS");
  clearPmiEnv();
}

TEST(PmiClient, PortWithInitack) {
  clearPmiEnv();
  int listener = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(listen(listener, 1), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  std::thread server([&] {
    int fd = accept(listener, nullptr, nullptr);
    ASSERT_GE(fd, 0);
    serve(fd, true);
  });
  setenv("PMI_PORT", ("127.0.0.1:" + std::to_string(ntohs(addr.sin_port))).c_str(), 1);
  setenv("PMI_ID", "5", 1);
  {
    Pmi pmi;
    ASSERT_EQ(pmi.init(), MPI_SUCCESS) << pmi.lastError();
    EXPECT_EQ(pmi.rank(), 5);
    EXPECT_EQ(pmi.size(), 8);
    EXPECT_EQ(pmi.put("x", "1"), MPI_SUCCESS);
    std::string v;
    EXPECT_EQ(pmi.get("x", &v), MPI_SUCCESS);
    EXPECT_EQ(v, "1");
    EXPECT_EQ(pmi.finalize(), MPI_SUCCESS);
  }
  server.join();
  close(listener);
  clearPmiEnv();
}

TEST(PmiClient, ProcessManagerGoneIsAnError) {
  clearPmiEnv();
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  std::thread server([&] { serve(sv[1], false, 5); });  // dies after the init sequence
  setenv("PMI_FD", std::to_string(sv[0]).c_str(), 1);
  setenv("PMI_RANK", "0", 1);
  setenv("PMI_SIZE", "2", 1);
  Pmi pmi;
  ASSERT_EQ(pmi.init(), MPI_SUCCESS) << pmi.lastError();
  EXPECT_EQ(pmi.barrier(), MPI_ERR_OTHER);
  EXPECT_NE(pmi.lastError().find("closed"), std::string::npos) << pmi.lastError();
  server.join();
  clearPmiEnv();
}

TEST(PmiClient, BadEnvironmentIsAnError) {
  clearPmiEnv();
  setenv("PMI_FD", "banana", 1);
  Pmi a;
  EXPECT_EQ(a.init(), MPI_ERR_OTHER);
  setenv("PMI_FD", "987", 1);  // not open
  Pmi b;
  EXPECT_EQ(b.init(), MPI_ERR_OTHER);
  clearPmiEnv();
  setenv("PMI_PORT", "nocolon", 1);
  Pmi c;
  EXPECT_EQ(c.init(), MPI_ERR_OTHER);
  clearPmiEnv();
}

}  // namespace
}  // namespace ccmpi::bootstrap
