#pragma once
// Line-buffered forwarding of rank output. Each (rank, stream) has its own buffer; only
// complete lines are released, so lines of different ranks never mix. A partial line is
// released at EOF, or in pieces once it grows past kMaxPartialLine (16 MiB: a line longer
// than that, from a program that writes without newlines). A piece adds nothing to the text
// when the output is neither tagged nor labelled (the line goes on where the piece ended,
// perhaps after another rank's lines); tagged or labelled, each piece is a line of its own
// and the pieces after the first carry a "+" after the tag ("[1,0]<stdout>+:" or "[0]+ ").
//
// With --tag-output each line is prefixed like Open MPI's --tag-output:
//   [1,<rank>]<stdout>:<line>      and      [1,<rank>]<stderr>:<line>
// ("1" stands for the job; it is always 1 here). With -l (MPICH's label) instead:
//   [<rank>] <line>
#include <map>
#include <string>
#include <string_view>
#include <utility>

namespace ccmpi::launcher {

class OutputAssembler {
 public:
  static constexpr std::size_t kMaxPartialLine = 16 << 20;

  explicit OutputAssembler(bool tag, bool label = false) : tag_(tag), label_(label) {}

  // Adds output of `rank` on `stream` (1 = stdout, 2 = stderr) and returns the text that
  // is ready to be written to that stream (possibly empty).
  std::string feed(int rank, int stream, std::string_view data);
  // The stream ended: returns whatever partial line is left.
  std::string finish(int rank, int stream);

 private:
  void emit(std::string* out, int rank, int stream, std::string_view line, bool continued);

  bool tag_;
  bool label_;
  struct Partial {
    std::string text;
    bool continued = false;  // pieces of this line went out already
  };
  std::map<std::pair<int, int>, Partial> partial_;
};

}  // namespace ccmpi::launcher
