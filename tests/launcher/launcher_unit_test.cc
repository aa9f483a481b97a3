// Unit tests of mpirun's pure parts: hostfile and host list parsing, placement, process
// mapping, options, proxy framing, launch descriptions, the PMI server, output assembly
// and environment construction.
#include <gtest/gtest.h>

#include <map>

#include "bootstrap/pmi_wire.h"
#include "bootstrap/slurm_env.h"
#include "launcher/frame.h"
#include "launcher/hostfile.h"
#include "launcher/options.h"
#include "launcher/output.h"
#include "launcher/pmi_server.h"
#include "launcher/rank_set.h"

namespace ccmpi::launcher {
namespace {

// ---------------------------------------------------------------- hostfile

TEST(Hostfile, BothStylesCommentsAndBlankLines) {
  std::vector<HostSlots> hosts;
  std::string error;
  ASSERT_TRUE(
      parseHostfile("# cluster\n"
                    "node1\n"
                    "\n"
                    "node2 slots=4   # four cores\n"
                    "  node3:2\n"
                    "node4 slots=2 max_slots=8\r\n"
                    "user@node5\n",
                    &hosts, &error))
      << error;
  ASSERT_EQ(hosts.size(), 5u);
  EXPECT_EQ(hosts[0].name, "node1");
  EXPECT_EQ(hosts[0].slots, 1);
  EXPECT_EQ(hosts[1].slots, 4);
  EXPECT_EQ(hosts[2].name, "node3");
  EXPECT_EQ(hosts[2].slots, 2);
  EXPECT_EQ(hosts[3].slots, 2);
  EXPECT_EQ(hosts[4].name, "user@node5");
}

TEST(Hostfile, ErrorsNameTheLine) {
  std::vector<HostSlots> hosts;
  std::string error;
  EXPECT_FALSE(parseHostfile("a\nb slots=0\n", &hosts, &error));
  EXPECT_NE(error.find("line 2"), std::string::npos) << error;
  EXPECT_FALSE(parseHostfile("a slots=x\n", &hosts, &error));
  EXPECT_FALSE(parseHostfile("a:2 slots=3\n", &hosts, &error));
  EXPECT_FALSE(parseHostfile("a slots=1 slots=2\n", &hosts, &error));
  EXPECT_FALSE(parseHostfile("a colour=red\n", &hosts, &error));
  EXPECT_NE(error.find("colour"), std::string::npos);
  EXPECT_FALSE(parseHostfile("a:-1\n", &hosts, &error));
  EXPECT_FALSE(parseHostfile("bad/name\n", &hosts, &error));
  EXPECT_FALSE(parseHostfile("$(reboot)\n", &hosts, &error));
  EXPECT_FALSE(parseHostfile("# nothing\n\n", &hosts, &error));
  EXPECT_NE(error.find("no hosts"), std::string::npos);
  EXPECT_FALSE(parseHostfile("", &hosts, &error));
}

TEST(Hostfile, HostList) {
  std::vector<HostSlots> hosts;
  std::string error;
  ASSERT_TRUE(parseHostList("host1,host2:2", &hosts, &error)) << error;
  ASSERT_EQ(hosts.size(), 2u);
  EXPECT_EQ(hosts[0].slots, 1);
  EXPECT_EQ(hosts[1].name, "host2");
  EXPECT_EQ(hosts[1].slots, 2);
  EXPECT_FALSE(parseHostList("a,,b", &hosts, &error));
  EXPECT_FALSE(parseHostList("a:0", &hosts, &error));
  EXPECT_FALSE(parseHostList("", &hosts, &error));
}

TEST(Hostfile, MergeKeepsFirstAppearance) {
  auto merged = mergeHosts({{"b", 1}, {"a", 2}, {"b", 3}});
  ASSERT_EQ(merged.size(), 2u);
  EXPECT_EQ(merged[0].name, "b");
  EXPECT_EQ(merged[0].slots, 4);
  EXPECT_EQ(merged[1].slots, 2);
}

TEST(Placement, FillsSlotsInOrder) {
  Placement p = placeRanks({{"a", 2}, {"b", 3}}, 4);
  EXPECT_FALSE(p.oversubscribed);
  EXPECT_EQ(p.hostOfRank, (std::vector<int>{0, 0, 1, 1}));
  EXPECT_EQ(p.ranksOfHost[1], (std::vector<int>{2, 3}));
  EXPECT_EQ(p.localRankOf, (std::vector<int>{0, 1, 0, 1}));
}

TEST(Placement, OversubscriptionCycles) {
  Placement p = placeRanks({{"a", 2}, {"b", 1}}, 7);
  EXPECT_TRUE(p.oversubscribed);
  EXPECT_EQ(p.hostOfRank, (std::vector<int>{0, 0, 1, 0, 0, 1, 0}));
  EXPECT_EQ(p.ranksOfHost[0], (std::vector<int>{0, 1, 3, 4, 6}));
  EXPECT_EQ(p.localRankOf[6], 4);
  EXPECT_EQ(p.localRankOf[5], 1);
}

TEST(Placement, ByNodeDealsRoundRobinWithinSlots) {
  Placement p = placeRanksByNode({{"a", 3}, {"b", 1}, {"c", 2}}, 6);
  EXPECT_FALSE(p.oversubscribed);
  EXPECT_EQ(p.hostOfRank, (std::vector<int>{0, 1, 2, 0, 2, 0}));
  EXPECT_EQ(p.ranksOfHost[0], (std::vector<int>{0, 3, 5}));
  EXPECT_EQ(p.localRankOf, (std::vector<int>{0, 0, 0, 1, 1, 2}));
  Placement q = placeRanksByNode({{"a", 1}, {"b", 1}}, 5);
  EXPECT_TRUE(q.oversubscribed);
  EXPECT_EQ(q.hostOfRank, (std::vector<int>{0, 1, 0, 1, 0}));
  EXPECT_EQ(processMapping(placeRanksByNode({{"a", 2}, {"b", 2}}, 4)), "(vector,(0,2,1),(0,2,1))");
}

// ---------------------------------------------------------------- Slurm lists

TEST(SlurmEnv, HostListRangesPaddingAndProducts) {
  std::vector<std::string> h;
  std::string error;
  ASSERT_TRUE(bootstrap::expandSlurmHostList("node[01-03,07],login", &h, &error)) << error;
  EXPECT_EQ(h, (std::vector<std::string>{"node01", "node02", "node03", "node07", "login"}));
  ASSERT_TRUE(bootstrap::expandSlurmHostList("r[1-2]n[8-10]", &h, &error)) << error;
  EXPECT_EQ(h, (std::vector<std::string>{"r1n8", "r1n9", "r1n10", "r2n8", "r2n9", "r2n10"}));
  ASSERT_TRUE(bootstrap::expandSlurmHostList("vm", &h, &error));
  EXPECT_EQ(h, (std::vector<std::string>{"vm"}));
  ASSERT_TRUE(bootstrap::expandSlurmHostList("a-1,b[9-11]", &h, &error));
  EXPECT_EQ(h, (std::vector<std::string>{"a-1", "b9", "b10", "b11"}));
  for (const char* bad : {"", "n[1-", "n]1[", "n[3-1]", "n[x]", "n[1-2", "n[[1]]", "[1-2]x[]"})
    EXPECT_FALSE(bootstrap::expandSlurmHostList(bad, &h, &error)) << bad;
  EXPECT_FALSE(bootstrap::expandSlurmHostList("n[0-9999999]", &h, &error));
  EXPECT_NE(error.find("too many"), std::string::npos) << error;
}

TEST(SlurmEnv, TaskCountsWithRepeats) {
  std::vector<int> c;
  std::string error;
  ASSERT_TRUE(bootstrap::parseSlurmTaskCounts("2(x3),1", &c, &error)) << error;
  EXPECT_EQ(c, (std::vector<int>{2, 2, 2, 1}));
  ASSERT_TRUE(bootstrap::parseSlurmTaskCounts("8", &c, &error));
  EXPECT_EQ(c, (std::vector<int>{8}));
  for (const char* bad : {"", "2(x)", "2(3)", "x", "2(x0)", "1,,2", "-1", "2(x2"})
    EXPECT_FALSE(bootstrap::parseSlurmTaskCounts(bad, &c, &error)) << bad;
}

TEST(Placement, ProcessMapping) {
  EXPECT_EQ(processMapping(placeRanks({{"a", 2}, {"b", 2}, {"c", 2}}, 6)), "(vector,(0,3,2))");
  EXPECT_EQ(processMapping(placeRanks({{"a", 2}, {"b", 1}}, 3)), "(vector,(0,1,2),(1,1,1))");
  EXPECT_EQ(processMapping(placeRanks({{"a", 4}}, 3)), "(vector,(0,1,3))");
  EXPECT_EQ(processMapping(placeRanks({{"a", 1}, {"b", 1}}, 4)), "(vector,(0,2,1),(0,2,1))");
}

TEST(Placement, LocalHostNames) {
  EXPECT_TRUE(isLocalHostName("localhost", "node7.example.org"));
  EXPECT_TRUE(isLocalHostName("127.0.0.1", "node7"));
  EXPECT_TRUE(isLocalHostName("node7", "node7.example.org"));
  EXPECT_TRUE(isLocalHostName("node7.example.org", "node7.example.org"));
  EXPECT_FALSE(isLocalHostName("node8", "node7.example.org"));
  EXPECT_FALSE(isLocalHostName("node", "node7"));
}

// ---------------------------------------------------------------- options

TEST(Options, Typical) {
  Options o;
  std::string error;
  ASSERT_TRUE(parseOptions({"-np",
                            "4",
                            "--hostfile",
                            "hf",
                            "-x",
                            "FOO",
                            "-x",
                            "BAR=1=2",
                            "--env",
                            "A=b c",
                            "-genv",
                            "G",
                            "v",
                            "--iface=eth1",
                            "--compress",
                            "auto",
                            "--tag-output",
                            "--launcher",
                            "ccmpi-cluster  exec",
                            "./prog",
                            "-n",
                            "3"},
                           &o, &error))
      << error;
  EXPECT_EQ(o.np, 4);
  EXPECT_EQ(o.hostfile, "hf");
  ASSERT_EQ(o.exports.size(), 2u);
  EXPECT_FALSE(o.exports[0].second.has_value());
  EXPECT_EQ(*o.exports[1].second, "1=2");
  ASSERT_EQ(o.env.size(), 2u);
  EXPECT_EQ(o.env[0].second, "b c");
  EXPECT_EQ(o.env[1].first, "G");
  EXPECT_EQ(o.iface, "eth1");
  EXPECT_EQ(o.compress, "auto");
  EXPECT_TRUE(o.tagOutput);
  EXPECT_EQ(o.agent, (std::vector<std::string>{"ccmpi-cluster", "exec"}));
  // Options after the program belong to the program.
  EXPECT_EQ(o.command, (std::vector<std::string>{"./prog", "-n", "3"}));
}

TEST(Options, SpellingsAndHosts) {
  Options o;
  std::string error;
  ASSERT_TRUE(
      parseOptions({"--n=2", "-H", "a,b:2", "--host", "c", "--", "-weird-prog"}, &o, &error))
      << error;
  EXPECT_EQ(o.np, 2);
  ASSERT_EQ(o.hostList.size(), 3u);
  EXPECT_EQ(o.hostList[1].slots, 2);
  EXPECT_EQ(o.command[0], "-weird-prog");
  ASSERT_TRUE(parseOptions({"-c", "3", "--machinefile", "m", "prog"}, &o, &error));
  EXPECT_EQ(o.np, 3);
  EXPECT_EQ(o.hostfile, "m");
  ASSERT_TRUE(parseOptions({"--help"}, &o, &error));
  EXPECT_TRUE(o.help);
}

TEST(Options, Errors) {
  Options o;
  std::string error;
  EXPECT_FALSE(parseOptions({"-n", "0", "prog"}, &o, &error));
  EXPECT_FALSE(parseOptions({"-n", "x", "prog"}, &o, &error));
  EXPECT_FALSE(parseOptions({"-n"}, &o, &error));
  EXPECT_FALSE(parseOptions({"--frobnicate", "prog"}, &o, &error));
  EXPECT_NE(error.find("--frobnicate"), std::string::npos);
  EXPECT_FALSE(parseOptions({"-n", "2"}, &o, &error));
  EXPECT_NE(error.find("no program"), std::string::npos);
  EXPECT_FALSE(parseOptions({"--env", "NOEQUALS", "prog"}, &o, &error));
  EXPECT_FALSE(parseOptions({"-x", "1BAD", "prog"}, &o, &error));
  EXPECT_FALSE(parseOptions({"-genv", "A"}, &o, &error));
  EXPECT_FALSE(parseOptions({"-H", "a,,b", "prog"}, &o, &error));
  EXPECT_FALSE(parseOptions({"-H", "a", "--hostfile", "f", "prog"}, &o, &error));
  EXPECT_FALSE(parseOptions({"--tag-output=yes", "prog"}, &o, &error));
  EXPECT_FALSE(parseOptions({"--launcher", "  ", "prog"}, &o, &error));
  EXPECT_FALSE(parseOptions({"--compress", "on please", "prog"}, &o, &error));
  EXPECT_NE(error.find("off, on, auto or a codec name"), std::string::npos);
  EXPECT_FALSE(parseOptions({"--compress", "", "prog"}, &o, &error));
  // A codec name passes; the ranks check it against the codecs they have.
  ASSERT_TRUE(parseOptions({"--compress", "shuffle-zstd", "prog"}, &o, &error)) << error;
  EXPECT_EQ(o.compress, "shuffle-zstd");
}

TEST(Options, OpenMpiAndHydraHabits) {
  Options o;
  std::string error;
  ASSERT_TRUE(parseOptions({"--map-by", "Node", "--bind-to", "core", "--report-bindings", "-ppn",
                            "3", "-l", "--oversubscribe", "--allow-run-as-root", "prog"},
                           &o, &error))
      << error;
  EXPECT_EQ(o.mapBy, "node");
  EXPECT_EQ(o.bindTo, "core");
  EXPECT_TRUE(o.reportBindings);
  EXPECT_EQ(o.ppn, 3);
  EXPECT_TRUE(o.labelOutput);
  EXPECT_TRUE(o.oversubscribe);
  ASSERT_TRUE(
      parseOptions({"-npernode", "2", "--bind-to=socket", "--map-by=core", "p"}, &o, &error));
  EXPECT_EQ(o.ppn, 2);
  EXPECT_EQ(o.bindTo, "socket");
  EXPECT_EQ(o.mapBy, "core");
  ASSERT_TRUE(parseOptions({"-N", "4", "p"}, &o, &error));
  EXPECT_EQ(o.ppn, 4);
  EXPECT_FALSE(o.oversubscribe);
  // Supported options with values we do not support, and known unsupported options.
  EXPECT_FALSE(parseOptions({"--map-by", "ppr:2:node", "p"}, &o, &error));
  EXPECT_NE(error.find("ppr:2:node"), std::string::npos) << error;
  EXPECT_FALSE(parseOptions({"--bind-to", "hwthread", "p"}, &o, &error));
  EXPECT_NE(error.find("none, auto, core or socket"), std::string::npos) << error;
  ASSERT_TRUE(parseOptions({"--bind-to", "AUTO", "p"}, &o, &error)) << error;
  EXPECT_EQ(o.bindTo, "auto");
  EXPECT_FALSE(parseOptions({"-ppn", "0", "p"}, &o, &error));
  ASSERT_TRUE(parseOptions({"-genvall", "--allow-run-as-root", "p"}, &o, &error)) << error;
  for (const char* opt : {"--mca", "-mca", "--rankfile", "-bootstrap", "--prefix", "--bynode",
                          "-genvlist", "-outfile-pattern"}) {
    EXPECT_FALSE(parseOptions({opt, "x", "p"}, &o, &error)) << opt;
    EXPECT_NE(error.find(std::string("'") + opt + "'"), std::string::npos) << error;
    EXPECT_NE(error.find("not supported"), std::string::npos) << error;
  }
}

// ---------------------------------------------------------------- frames

TEST(Frames, SkipsNoiseBeforeMagicAndReassembles) {
  std::string stream = "Welcome to node2!\n";
  stream += kProxyMagic;
  appendFrame(&stream, FrameType::kStarted, 3, encodeInt(4242));
  appendFrame(&stream, FrameType::kPmi, 3, "cmd=barrier_in\n");
  appendFrame(&stream, FrameType::kStdout, 1, "");
  FrameReader reader(true);
  std::vector<Frame> frames;
  std::string error;
  // Feed one byte at a time: frames must come out whole and in order.
  for (char c : stream) {
    reader.feed(&c, 1);
    Frame f;
    while (reader.next(&f, &error) == FrameReader::Result::kFrame) frames.push_back(f);
  }
  ASSERT_EQ(frames.size(), 3u);
  std::int32_t pid = 0;
  EXPECT_EQ(frames[0].type, FrameType::kStarted);
  EXPECT_EQ(frames[0].rank, 3);
  ASSERT_TRUE(decodeInt(frames[0].payload, &pid));
  EXPECT_EQ(pid, 4242);
  EXPECT_EQ(frames[1].payload, "cmd=barrier_in\n");
  EXPECT_EQ(frames[2].type, FrameType::kStdout);
  EXPECT_TRUE(frames[2].payload.empty());
}

TEST(Frames, CorruptHeaderIsAnError) {
  FrameReader reader(false);
  std::string bad = std::string("\x05\x00\x00\x00\x63\x00\x00\x00\x00\x00\x00\x00", 12) + "hello";
  reader.feed(bad.data(), bad.size());
  Frame f;
  std::string error;
  EXPECT_EQ(reader.next(&f, &error), FrameReader::Result::kError);
  FrameReader noMagic(true);
  std::string junk(70000, 'x');
  noMagic.feed(junk.data(), junk.size());
  EXPECT_EQ(noMagic.next(&f, &error), FrameReader::Result::kError);
}

TEST(Frames, LaunchSpecRoundTrip) {
  LaunchSpec spec;
  spec.host = "node2";
  spec.argv = {"/bin/prog", "a b", ""};
  spec.cwd = "/tmp/x";
  spec.setEnv = {"A=1", "CCMPI_JOB_SECRET=00ff"};
  spec.unsetEnv = {"PMI_PORT"};
  spec.worldSize = 6;
  spec.ranks = {{1, 0}, {4, 1}};
  spec.rank0Stdin = StdinMode::kPipe;
  LaunchSpec back;
  std::string error;
  ASSERT_TRUE(decodeLaunchSpec(encodeLaunchSpec(spec), &back, &error)) << error;
  EXPECT_EQ(back.host, spec.host);
  EXPECT_EQ(back.argv, spec.argv);
  EXPECT_EQ(back.cwd, spec.cwd);
  EXPECT_EQ(back.setEnv, spec.setEnv);
  EXPECT_EQ(back.unsetEnv, spec.unsetEnv);
  EXPECT_EQ(back.worldSize, 6);
  ASSERT_EQ(back.ranks.size(), 2u);
  EXPECT_EQ(back.ranks[1].rank, 4);
  EXPECT_EQ(back.ranks[1].localRank, 1);
  EXPECT_EQ(back.rank0Stdin, StdinMode::kPipe);
  std::string data = encodeLaunchSpec(spec);
  EXPECT_FALSE(decodeLaunchSpec(data.substr(0, data.size() - 1), &back, &error));
  EXPECT_FALSE(decodeLaunchSpec(data + "x", &back, &error));
  spec.ranks = {{7, 0}};  // rank >= worldSize
  EXPECT_FALSE(decodeLaunchSpec(encodeLaunchSpec(spec), &back, &error));
}

// ---------------------------------------------------------------- PMI server

struct ServerHarness {
  std::map<int, std::vector<std::string>> replies;
  std::vector<std::pair<int, int>> aborts;
  std::vector<std::string> errors;
  PmiServer server;

  explicit ServerHarness(int size)
      : server(PmiServer::Config{size, 0, size + 2, "kvs_test", "(vector,(0,1,2))"},
               PmiServer::Actions{[this](int r, const std::string& l) { replies[r].push_back(l); },
                                  [this](int r, int c) { aborts.emplace_back(r, c); },
                                  [this](int, const std::string& e) { errors.push_back(e); }}) {}
  std::string last(int rank) { return replies[rank].empty() ? "" : replies[rank].back(); }
};

TEST(PmiServer, InitSequence) {
  ServerHarness h(2);
  h.server.handleLine(0, "cmd=init pmi_version=1 pmi_subversion=1");
  EXPECT_EQ(h.last(0), "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n");
  EXPECT_TRUE(h.server.initialized(0));
  EXPECT_FALSE(h.server.initialized(1));
  h.server.handleLine(0, "cmd=get_maxes");
  EXPECT_EQ(h.last(0), "cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024\n");
  h.server.handleLine(0, "cmd=get_appnum");
  EXPECT_EQ(h.last(0), "cmd=appnum appnum=0\n");
  h.server.handleLine(0, "cmd=get_my_kvsname");
  EXPECT_EQ(h.last(0), "cmd=my_kvsname kvsname=kvs_test\n");
  h.server.handleLine(0, "cmd=get_universe_size");
  EXPECT_EQ(h.last(0), "cmd=universe_size size=4\n");
  h.server.handleLine(1, "cmd=init pmi_version=2 pmi_subversion=0");
  EXPECT_NE(h.last(1).find("rc=-1"), std::string::npos);
  EXPECT_TRUE(h.errors.empty());
}

TEST(PmiServer, PutGetAndBarrier) {
  ServerHarness h(3);
  h.server.handleLine(1, "cmd=put kvsname=kvs_test key=a value=x=y");
  EXPECT_EQ(h.last(1), "cmd=put_result rc=0 msg=success\n");
  h.server.handleLine(2, "cmd=get kvsname=kvs_test key=a");
  EXPECT_EQ(h.last(2), "cmd=get_result rc=0 msg=success value=x=y\n");
  h.server.handleLine(2, "cmd=get kvsname=kvs_test key=zz");
  EXPECT_EQ(h.last(2), "cmd=get_result rc=-1 msg=key_zz_not_found value=unknown\n");
  h.server.handleLine(0, "cmd=get kvsname=kvs_test key=PMI_process_mapping");
  EXPECT_EQ(h.last(0), "cmd=get_result rc=0 msg=success value=(vector,(0,1,2))\n");

  h.replies.clear();
  h.server.handleLine(0, "cmd=barrier_in");
  h.server.handleLine(2, "cmd=barrier_in");
  EXPECT_TRUE(h.replies.empty());
  h.server.handleLine(1, "cmd=barrier_in");
  for (int r = 0; r < 3; ++r) {
    ASSERT_EQ(h.replies[r].size(), 1u);
    EXPECT_EQ(h.replies[r][0], "cmd=barrier_out\n");
  }
  // A second barrier works the same way.
  h.replies.clear();
  for (int r = 0; r < 3; ++r) h.server.handleLine(r, "cmd=barrier_in");
  EXPECT_EQ(h.replies[2].size(), 1u);
  EXPECT_TRUE(h.errors.empty());
}

// ccmpi.ranks_per_core: derived at a barrier once every rank has put ccmpi.cpu.<rank>,
// from the busiest kernel (ranks of one kernel id / its CPUs, rounded down).
TEST(PmiServer, DerivesRanksPerCore) {
  ServerHarness h(5);
  auto barrier = [&h] {
    for (int r = 0; r < 5; ++r) h.server.handleLine(r, "cmd=barrier_in");
  };
  auto derived = [&h] {
    h.server.handleLine(0, "cmd=get kvsname=kvs_test key=ccmpi.ranks_per_core");
    return h.last(0);
  };
  // Kernel a: ranks 0, 2, 4 on 2 CPUs (1 per core); kernel b: ranks 1, 3 on 1 CPU (2).
  const char* cpu[] = {"a-1:2", "b-2:1", "a-1:2", "b-2:1", "a-1:2"};
  for (int r = 0; r < 4; ++r)
    h.server.handleLine(
        r, "cmd=put kvsname=kvs_test key=ccmpi.cpu." + std::to_string(r) + " value=" + cpu[r]);
  EXPECT_EQ(h.server.ranksPerCore(), -1);  // rank 4 has not reported
  barrier();
  EXPECT_EQ(derived(),
            "cmd=get_result rc=-1 msg=key_ccmpi.ranks_per_core_not_found value=unknown\n");
  h.server.handleLine(4, "cmd=put kvsname=kvs_test key=ccmpi.cpu.4 value=a-1:2");
  EXPECT_EQ(h.server.ranksPerCore(), 2);
  barrier();
  EXPECT_EQ(derived(), "cmd=get_result rc=0 msg=success value=2\n");
  // Every rank with a core of its own: 0.
  h.server.handleLine(1, "cmd=put kvsname=kvs_test key=ccmpi.cpu.1 value=b-2:8");
  h.server.handleLine(3, "cmd=put kvsname=kvs_test key=ccmpi.cpu.3 value=c-3:8");
  EXPECT_EQ(h.server.ranksPerCore(), 1);  // kernel a still has 3 ranks on 2 CPUs
  for (int r : {0, 2, 4})
    h.server.handleLine(
        r, "cmd=put kvsname=kvs_test key=ccmpi.cpu." + std::to_string(r) + " value=a-1:4");
  EXPECT_EQ(h.server.ranksPerCore(), 0);
  // Malformed: no CPU count, no id, zero CPUs.
  for (const char* bad : {"a-1", ":4", "a-1:0", "a-1:x"}) {
    h.server.handleLine(2, std::string("cmd=put kvsname=kvs_test key=ccmpi.cpu.2 value=") + bad);
    EXPECT_EQ(h.server.ranksPerCore(), -1) << bad;
  }
  EXPECT_TRUE(h.errors.empty());
}

// ccmpi.link_mbits: derived at a barrier from the ranks' link cards (escaped on the wire as
// every value is): the slowest rate found, with where it was found.
TEST(PmiServer, DerivesTheJobLink) {
  ServerHarness h(3);
  auto barrier = [&h] {
    for (int r = 0; r < 3; ++r) h.server.handleLine(r, "cmd=barrier_in");
  };
  auto job = [&h] {
    h.server.handleLine(1, "cmd=get kvsname=kvs_test key=ccmpi.link_mbits");
    const std::string line = h.last(1);
    const std::string tag = "value=";
    const size_t at = line.find(tag);
    std::string raw;
    if (at == std::string::npos ||
        !ccmpi::bootstrap::unescapePmiValue(
            line.substr(at + tag.size(), line.size() - at - tag.size() - 1), &raw))
      return line;
    return raw;
  };
  barrier();  // no cards yet: no key
  EXPECT_EQ(h.last(1), "cmd=barrier_out\n");
  h.server.handleLine(1, "cmd=get kvsname=kvs_test key=ccmpi.link_mbits");
  EXPECT_EQ(h.last(1), "cmd=get_result rc=-1 msg=key_ccmpi.link_mbits_not_found value=unknown\n");
  const char* cards[] = {"1000 NIC speed of eth0", "25 tbf qdisc on r0",
                         "0 eth1 reports no speed and has no rate-limiting qdisc"};
  for (int r = 0; r < 3; ++r)
    h.server.handleLine(r, "cmd=put kvsname=kvs_test key=ccmpi.link." + std::to_string(r) +
                               " value=" + ccmpi::bootstrap::escapePmiValue(cards[r]));
  barrier();
  EXPECT_EQ(job(), "25 tbf qdisc on r0 (slowest of 3 ranks; 1 found nothing)");
  EXPECT_TRUE(h.errors.empty());
}

// ccmpi.job_rails: derived at a barrier from the ranks' rail cards (bootstrap/rail_card.h),
// the fewest rails of any rank; none while a card is missing or malformed.
TEST(PmiServer, DerivesTheJobRails) {
  ServerHarness h(3);
  auto barrier = [&h] {
    for (int r = 0; r < 3; ++r) h.server.handleLine(r, "cmd=barrier_in");
  };
  auto put = [&h](int r, const std::string& card) {
    h.server.handleLine(r, "cmd=put kvsname=kvs_test key=ccmpi.rails." + std::to_string(r) +
                               " value=" + ccmpi::bootstrap::escapePmiValue(card));
  };
  auto get = [&h] {
    h.server.handleLine(2, "cmd=get kvsname=kvs_test key=ccmpi.job_rails");
    return h.last(2);
  };
  const std::string two = "r0 198.18.0.1/24 4000 25;r1 198.18.1.1/24 4001 25";
  put(0, two);
  put(1, "r0 198.18.0.2/24 4000 25;r1 198.18.1.2/24 4001 25;r2 198.18.2.2/24 4002 25");
  put(2, "r0 198.18.0.3/24 4000 25;r1 not-an-address 4001 25");  // malformed
  barrier();
  EXPECT_EQ(get(), "cmd=get_result rc=-1 msg=key_ccmpi.job_rails_not_found value=unknown\n");
  put(2, two);
  barrier();
  EXPECT_EQ(get(), "cmd=get_result rc=0 msg=success value=2\n");
  EXPECT_TRUE(h.errors.empty());
}

TEST(PmiServer, FinalizeAbortAndErrors) {
  ServerHarness h(2);
  h.server.handleLine(0, "cmd=finalize");
  EXPECT_EQ(h.last(0), "cmd=finalize_ack\n");
  EXPECT_TRUE(h.server.finalized(0));
  h.server.handleLine(1, "cmd=abort exitcode=7");
  ASSERT_EQ(h.aborts.size(), 1u);
  EXPECT_EQ(h.aborts[0], std::make_pair(1, 7));
  h.server.handleLine(1, "cmd=publish_name service=s port=p");
  EXPECT_EQ(h.last(1), "cmd=publish_name_result rc=-1 msg=unsupported_command\n");
  h.server.handleLine(1, "mcmd=spawn");
  h.server.handleLine(1, "nprocs=2");
  h.server.handleLine(1, "endcmd");
  EXPECT_NE(h.last(1).find("cmd=spawn_result rc=-1"), std::string::npos);
  EXPECT_TRUE(h.errors.empty());
  h.server.handleLine(0, "garbage");
  EXPECT_EQ(h.errors.size(), 1u);
  h.server.handleLine(0, "cmd=barrier_in");
  h.server.handleLine(0, "cmd=barrier_in");
  EXPECT_EQ(h.errors.size(), 2u);
  h.server.handleLine(0, "cmd=put kvsname=k key=" + std::string(64, 'k') + " value=v");
  EXPECT_EQ(h.errors.size(), 3u);
}

// ---------------------------------------------------------------- output, environment

TEST(Output, ReassemblesLinesPerRankAndStream) {
  OutputAssembler out(false);
  EXPECT_EQ(out.feed(0, 1, "hel"), "");
  EXPECT_EQ(out.feed(1, 1, "other\npart"), "other\n");
  EXPECT_EQ(out.feed(0, 2, "err\n"), "err\n");
  EXPECT_EQ(out.feed(0, 1, "lo\nwor"), "hello\n");
  EXPECT_EQ(out.finish(0, 1), "wor");
  EXPECT_EQ(out.finish(1, 1), "part");
  EXPECT_EQ(out.finish(1, 2), "");
}

TEST(Output, TagsLikeOpenMpi) {
  OutputAssembler out(true);
  EXPECT_EQ(out.feed(3, 1, "a\nb\nc"), "[1,3]<stdout>:a\n[1,3]<stdout>:b\n");
  EXPECT_EQ(out.feed(12, 2, "oops\n"), "[1,12]<stderr>:oops\n");
  EXPECT_EQ(out.finish(3, 1), "[1,3]<stdout>:c\n");
}

TEST(Output, LabelsLikeHydra) {
  OutputAssembler out(false, true);
  EXPECT_EQ(out.feed(2, 1, "a\nb"), "[2] a\n");
  EXPECT_EQ(out.feed(0, 2, "e\n"), "[0] e\n");
  EXPECT_EQ(out.finish(2, 1), "[2] b\n");
}

TEST(Output, LongLinesStayWhole) {
  // A 3 MB line written in 64 KiB pieces comes out as one line, nothing inserted.
  OutputAssembler out(false);
  std::string got, line(3 << 20, 'x');
  line += '\n';
  for (std::size_t i = 0; i < line.size(); i += 65536) got += out.feed(0, 1, line.substr(i, 65536));
  got += out.finish(0, 1);
  EXPECT_EQ(got, line);
}

TEST(Output, VeryLongLinesGoInPiecesMarkedWhenTagged) {
  const std::string big(OutputAssembler::kMaxPartialLine, 'x');
  OutputAssembler plain(false);
  // Untagged: the piece goes out as it is, the line continues without a newline.
  EXPECT_EQ(plain.feed(0, 1, big), big);
  EXPECT_EQ(plain.feed(0, 1, "yz\n"), "yz\n");
  OutputAssembler tagged(true);
  EXPECT_EQ(tagged.feed(1, 1, big), "[1,1]<stdout>:" + big + "\n");
  EXPECT_EQ(tagged.feed(1, 1, "yz\nnext\n"), "[1,1]<stdout>+:yz\n[1,1]<stdout>:next\n");
  OutputAssembler labelled(false, true);
  EXPECT_EQ(labelled.feed(2, 2, big), "[2] " + big + "\n");
  EXPECT_EQ(labelled.feed(2, 2, "end"), "");
  EXPECT_EQ(labelled.finish(2, 2), "[2]+ end\n");
}

TEST(Environment, UnsetThenSetInOrder) {
  auto env = buildEnvironment({"A=1", "PMI_PORT=h:1", "B=2"}, {"PMI_PORT"}, {"B=3", "C=4", "C=5"});
  EXPECT_EQ(env, (std::vector<std::string>{"A=1", "B=3", "C=5"}));
  EXPECT_EQ(signalName(11), "SIGSEGV");
  EXPECT_EQ(splitCommand("  ip netns  exec\tns1 "),
            (std::vector<std::string>{"ip", "netns", "exec", "ns1"}));
}

}  // namespace
}  // namespace ccmpi::launcher
