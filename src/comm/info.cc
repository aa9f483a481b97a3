// Info objects and MPI_INFO_ENV. The environment info is built from /proc/self/cmdline
// (command and argv), the world size (maxprocs), the host name, the machine type (uname)
// and the working directory.
#include "comm/info.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <iterator>

#include "base/handles.h"
#include "runtime/runtime.h"

namespace ccmpi::comm {
namespace {

HandleTable<Info>& table() {
  static HandleTable<Info> t(HandleKind::kInfo);
  return t;
}

}  // namespace

const std::string* Info::find(const std::string& key) const {
  for (const auto& [k, v] : entries)
    if (k == key) return &v;
  return nullptr;
}

void Info::set(const std::string& key, const std::string& value) {
  for (auto& [k, v] : entries) {
    if (k == key) {
      v = value;
      return;
    }
  }
  entries.emplace_back(key, value);
}

bool Info::erase(const std::string& key) {
  for (auto it = entries.begin(); it != entries.end(); ++it) {
    if (it->first == key) {
      entries.erase(it);
      return true;
    }
  }
  return false;
}

Info* lookupInfo(MPI_Info h) {
  if (h == MPI_INFO_ENV) initInfoEnv();
  return table().get(h);
}

MPI_Info newInfo(InfoEntries entries) {
  table().reservePredefined(handleIndex(MPI_INFO_ENV) + 1);
  auto info = std::make_unique<Info>();
  info->entries = std::move(entries);
  return table().add(std::move(info));
}

void freeInfo(MPI_Info h) {
  if (!isPredefinedInfo(h)) table().remove(h);
}

bool isPredefinedInfo(MPI_Info h) {
  return h == MPI_INFO_ENV;
}

void initInfoEnv() {
  if (table().get(MPI_INFO_ENV)) return;
  auto info = std::make_unique<Info>();
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  for (size_t pos = 0; pos < all.size();) {
    const size_t end = all.find('\0', pos);
    args.push_back(all.substr(pos, end == std::string::npos ? std::string::npos : end - pos));
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  if (!args.empty()) {
    info->set("command", args[0]);
    std::string argv;
    for (size_t i = 1; i < args.size(); ++i) argv += (i > 1 ? " " : "") + args[i];
    info->set("argv", argv);
  }
  if (runtime::active()) info->set("maxprocs", std::to_string(runtime::worldSize()));
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) == 0) info->set("host", host);
  struct utsname u;
  if (uname(&u) == 0) info->set("arch", u.machine);
  char cwd[4096];
  if (getcwd(cwd, sizeof cwd)) info->set("wdir", cwd);
  table().putAt(handleIndex(MPI_INFO_ENV), std::move(info));
}

size_t liveInfos() {
  return table().liveDynamic();
}

}  // namespace ccmpi::comm
