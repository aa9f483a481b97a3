// PMI-1 command handling for one job (see pmi_server.h).
#include "launcher/pmi_server.h"

#include <algorithm>
#include <cstdlib>
#include <map>

#include "bootstrap/link_card.h"
#include "bootstrap/pmi_wire.h"
#include "bootstrap/rail_card.h"

namespace ccmpi::launcher {

using bootstrap::formatPmiLine;
using bootstrap::PmiMessage;

namespace {
constexpr const char* kRanksPerCoreKey = "ccmpi.ranks_per_core";
}  // namespace

int PmiServer::jobRails() const {
  // The fewest rails of any rank (bootstrap/rail_card.h). A rank without a card (one-rank
  // job, an older library) or with a malformed one leaves the figure unknown.
  int fewest = 0;
  std::string card;
  std::vector<bootstrap::Rail> rails;
  for (int r = 0; r < config_.size; ++r) {
    auto it = kvs_.find(bootstrap::kRailCardKey + std::to_string(r));
    if (it == kvs_.end() || !bootstrap::unescapePmiValue(it->second, &card) ||
        !bootstrap::parseRailCard(card, &rails))
      return -1;
    const int n = static_cast<int>(rails.size());
    fewest = fewest == 0 ? n : std::min(fewest, n);
  }
  return fewest;
}

int PmiServer::ranksPerCore() const {
  struct Kernel {
    long ranks = 0;
    long cpus = 1;
  };
  std::map<std::string, Kernel> kernels;
  for (int r = 0; r < config_.size; ++r) {
    auto it = kvs_.find("ccmpi.cpu." + std::to_string(r));
    if (it == kvs_.end()) return -1;
    const std::string& v = it->second;
    const std::size_t colon = v.rfind(':');
    if (colon == std::string::npos || colon == 0) return -1;
    char* end = nullptr;
    const long cpus = std::strtol(v.c_str() + colon + 1, &end, 10);
    if (*end != '\0' || cpus < 1) return -1;
    Kernel& k = kernels[v.substr(0, colon)];
    ++k.ranks;
    k.cpus = cpus;
  }
  long most = 0;
  for (const auto& [id, k] : kernels) most = std::max(most, k.ranks / k.cpus);
  return static_cast<int>(most);
}

void PmiServer::deriveJobLink() {
  // Every rank's link card (bootstrap/link_card.h) combined once, so that each rank reads
  // one key instead of all of them; ranks that published none (an older library) are
  // left out.
  // Values are stored as the clients sent them, escaped (bootstrap/pmi_wire.h).
  std::vector<std::string> cards;
  std::string card;
  for (int r = 0; r < config_.size; ++r) {
    auto it = kvs_.find(bootstrap::kLinkCardKey + std::to_string(r));
    if (it != kvs_.end() && bootstrap::unescapePmiValue(it->second, &card)) cards.push_back(card);
  }
  if (!cards.empty())
    kvs_[bootstrap::kJobLinkKey] = bootstrap::escapePmiValue(bootstrap::combineLinkCards(cards));
}

PmiServer::PmiServer(Config config, Actions actions)
    : config_(std::move(config)),
      actions_(std::move(actions)),
      ranks_(static_cast<std::size_t>(config_.size)) {}

void PmiServer::handleLine(int rank, std::string_view line) {
  RankState& st = ranks_.at(static_cast<std::size_t>(rank));
  auto reply = [&](std::string_view cmd,
                   const std::vector<std::pair<std::string, std::string>>& args) {
    actions_.reply(rank, formatPmiLine(cmd, args));
  };

  // The multi-line spawn command (mcmd=spawn ... endcmd) is refused as a whole.
  if (st.inMultiCommand) {
    if (line == "endcmd" || line == "endcmd\r") {
      st.inMultiCommand = false;
      reply("spawn_result", {{"rc", "-1"}, {"errmsg", "spawn_not_supported"}});
    }
    return;
  }

  PmiMessage msg;
  std::string error;
  if (!bootstrap::parsePmiLine(line, &msg, &error)) {
    actions_.protocolError(rank, "malformed PMI line (" + error + ")");
    return;
  }
  if (msg.multi) {
    st.inMultiCommand = true;
    return;
  }
  const std::string& cmd = msg.cmd;

  if (cmd == "init") {
    const std::string* version = msg.find("pmi_version");
    int v = 0;
    if (!version || !bootstrap::parsePmiInt(*version, &v) || v != 1) {
      reply("response_to_init", {{"pmi_version", "1"}, {"pmi_subversion", "1"}, {"rc", "-1"}});
      return;
    }
    st.initialized = true;
    reply("response_to_init", {{"pmi_version", "1"}, {"pmi_subversion", "1"}, {"rc", "0"}});
  } else if (cmd == "get_maxes") {
    reply("maxes", {{"kvsname_max", std::to_string(bootstrap::kPmiKvsNameMax)},
                    {"keylen_max", std::to_string(bootstrap::kPmiKeyLenMax)},
                    {"vallen_max", std::to_string(bootstrap::kPmiValLenMax)}});
  } else if (cmd == "get_appnum") {
    reply("appnum", {{"appnum", std::to_string(config_.appnum)}});
  } else if (cmd == "get_my_kvsname") {
    reply("my_kvsname", {{"kvsname", config_.kvsName}});
  } else if (cmd == "get_universe_size") {
    reply("universe_size", {{"size", std::to_string(config_.universeSize)}});
  } else if (cmd == "put") {
    const std::string* key = msg.find("key");
    const std::string* value = msg.find("value");
    if (!key || key->empty() || key->size() >= bootstrap::kPmiKeyLenMax) {
      actions_.protocolError(rank, "PMI put with a missing or over-long key");
      return;
    }
    std::string v = value ? *value : std::string();
    if (v.size() >= bootstrap::kPmiValLenMax) {
      actions_.protocolError(rank, "PMI put of an over-long value for key '" + *key + "'");
      return;
    }
    if (actions_.spawned && key->rfind(kSpawnedKey, 0) == 0) actions_.spawned(rank, v);
    kvs_[*key] = std::move(v);
    reply("put_result", {{"rc", "0"}, {"msg", "success"}});
  } else if (cmd == "get") {
    const std::string* key = msg.find("key");
    if (!key) {
      actions_.protocolError(rank, "PMI get without a key");
      return;
    }
    const std::string* value = nullptr;
    auto it = kvs_.find(*key);
    if (it != kvs_.end())
      value = &it->second;
    else if (*key == "PMI_process_mapping" && !config_.processMapping.empty())
      value = &config_.processMapping;
    if (value)
      reply("get_result", {{"rc", "0"}, {"msg", "success"}, {"value", *value}});
    else
      reply("get_result",
            {{"rc", "-1"}, {"msg", "key_" + *key + "_not_found"}, {"value", "unknown"}});
  } else if (cmd == "barrier_in") {
    if (st.inBarrier) {
      actions_.protocolError(rank, "second barrier_in before barrier_out");
      return;
    }
    st.inBarrier = true;
    if (++barrierCount_ == config_.size) {
      barrierCount_ = 0;
      if (kvs_.find(kRanksPerCoreKey) == kvs_.end()) {
        const int load = ranksPerCore();
        if (load >= 0) kvs_[kRanksPerCoreKey] = std::to_string(load);
      }
      if (kvs_.find(bootstrap::kJobLinkKey) == kvs_.end()) deriveJobLink();
      if (kvs_.find(bootstrap::kJobRailsKey) == kvs_.end()) {
        const int rails = jobRails();
        if (rails > 0) kvs_[bootstrap::kJobRailsKey] = std::to_string(rails);
      }
      for (std::size_t r = 0; r < ranks_.size(); ++r) {
        ranks_[r].inBarrier = false;
        actions_.reply(static_cast<int>(r), formatPmiLine("barrier_out"));
      }
    }
  } else if (cmd == "finalize") {
    st.finalized = true;
    reply("finalize_ack", {});
  } else if (cmd == "abort") {
    int code = 1;
    const std::string* c = msg.find("exitcode");
    if (c && !bootstrap::parsePmiInt(*c, &code)) code = 1;
    actions_.abort(rank, code);
  } else {
    reply(cmd + "_result", {{"rc", "-1"}, {"msg", "unsupported_command"}});
  }
}

}  // namespace ccmpi::launcher
