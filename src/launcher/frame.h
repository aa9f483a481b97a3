#pragma once
// The mpirun <-> proxy channel, and the description of the ranks to start on one host.
//
// mpirun starts one proxy per remote host through the launch agent
// (`<agent...> <host> <mpirun> --ccmpi-proxy`) and talks to it over the agent's stdin
// and stdout, so it needs no network path of its own to the host. The proxy first
// writes the magic line kProxyMagic (mpirun skips anything an rc file may print before
// it), then both directions carry frames:
//
//   header (12 bytes, little-endian): u32 payload length | u8 type | 3 bytes zero |
//                                     i32 rank (-1 = not about one rank)
//   payload (length bytes, at most kMaxFramePayload)
//
//   mpirun -> proxy   kJob      payload = encodeLaunchSpec(); always the first frame
//                     kPmi      PMI reply line(s) for `rank`, written to its PMI socket
//                     kStdin    data for rank 0's stdin; an empty payload means EOF
//                     kKill     terminate all ranks (SIGTERM, SIGKILL after a grace)
//   proxy -> mpirun   kStarted  `rank` was forked; payload = i32 pid
//                     kPmi      one PMI line from `rank`, with its '\n'
//                     kStdout   output of `rank`; an empty payload means EOF
//                     kStderr   likewise for stderr
//                     kExit     `rank` exited; payload = i32 wait status (after its PMI
//                               lines and available output were forwarded)
//                     kError    the proxy failed (payload = message); it then exits
//
// The proxy exits once all its ranks have exited and their output is forwarded, or at
// once (killing its ranks) when its stdin reaches EOF, i.e. mpirun or the agent is gone.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ccmpi::launcher {

inline constexpr std::string_view kProxyMagic = "CCMPI-PROXY-1\n";
inline constexpr std::size_t kFrameHeader = 12;
inline constexpr std::uint32_t kMaxFramePayload = 16u << 20;

enum class FrameType : std::uint8_t {
  kJob = 1,
  kPmi = 2,
  kStdin = 3,
  kKill = 4,
  kStarted = 5,
  kStdout = 6,
  kStderr = 7,
  kExit = 8,
  kError = 9,
};

struct Frame {
  FrameType type = FrameType::kError;
  std::int32_t rank = -1;
  std::string payload;
};

void appendFrame(std::string* out, FrameType type, std::int32_t rank, std::string_view payload);
std::string encodeInt(std::int32_t value);
bool decodeInt(std::string_view payload, std::int32_t* value);

// Incremental frame decoder; optionally skips input up to and including kProxyMagic.
class FrameReader {
 public:
  explicit FrameReader(bool expectMagic) : waitingForMagic_(expectMagic) {}
  void feed(const char* data, std::size_t n) { buffer_.append(data, n); }
  enum class Result { kNeedMore, kFrame, kError };
  Result next(Frame* frame, std::string* error);
  bool sawMagic() const { return !waitingForMagic_; }

 private:
  bool waitingForMagic_;
  std::string buffer_;
  std::size_t offset_ = 0;
};

enum class StdinMode : std::uint8_t { kNull = 0, kInherit = 1, kPipe = 2 };

struct RankSlot {
  int rank = 0;       // rank in the job
  int localRank = 0;  // index among the ranks of this host
};

// What a launch group (mpirun's local ranks, or one proxy) must start.
struct LaunchSpec {
  std::string host;                   // name used in messages
  std::vector<std::string> argv;      // program and arguments
  std::string cwd;                    // working directory ("" = keep)
  std::vector<std::string> setEnv;    // NAME=VALUE for every rank (after the inherited env)
  std::vector<std::string> unsetEnv;  // names removed from the inherited env
  int worldSize = 0;
  std::vector<RankSlot> ranks;  // this group's ranks
  StdinMode rank0Stdin = StdinMode::kNull;
};

std::string encodeLaunchSpec(const LaunchSpec& spec);
bool decodeLaunchSpec(std::string_view data, LaunchSpec* spec, std::string* error);

}  // namespace ccmpi::launcher
