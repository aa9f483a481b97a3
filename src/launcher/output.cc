// Per-rank line assembly of forwarded output (see output.h).
#include "launcher/output.h"

namespace ccmpi::launcher {

void OutputAssembler::emit(std::string* out, int rank, int stream, std::string_view line,
                           bool continued) {
  if (tag_) {
    *out += "[1," + std::to_string(rank) + "]";
    *out += stream == 2 ? "<stderr>" : "<stdout>";
    *out += continued ? "+:" : ":";
  } else if (label_) {
    *out += "[" + std::to_string(rank) + "]";
    *out += continued ? "+ " : " ";
  }
  out->append(line);
}

std::string OutputAssembler::feed(int rank, int stream, std::string_view data) {
  std::string out;
  Partial& part = partial_[{rank, stream}];
  while (!data.empty()) {
    std::size_t nl = data.find('\n');
    if (nl == std::string_view::npos) {
      part.text.append(data);
      if (part.text.size() >= kMaxPartialLine) {
        emit(&out, rank, stream, part.text, part.continued);
        if (tag_ || label_) out += '\n';  // a tagged piece is a line of its own
        part.text.clear();
        part.continued = true;
      }
      break;
    }
    part.text.append(data.substr(0, nl + 1));
    emit(&out, rank, stream, part.text, part.continued);
    part.text.clear();
    part.continued = false;
    data.remove_prefix(nl + 1);
  }
  return out;
}

std::string OutputAssembler::finish(int rank, int stream) {
  std::string out;
  auto it = partial_.find({rank, stream});
  if (it == partial_.end()) return out;
  if (!it->second.text.empty()) {
    emit(&out, rank, stream, it->second.text, it->second.continued);
    // A tagged line always ends the output line, so the next tag starts a new one.
    if (tag_ || label_) out += '\n';
  }
  partial_.erase(it);
  return out;
}

}  // namespace ccmpi::launcher
