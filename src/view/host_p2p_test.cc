#include "view/host_p2p.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace dossier {
namespace {

// A pair of host GPUs is looked up only when both are the host's: one the host lacks says which,
// a host whose GPUs are not known at all says so and what to paste.
TEST(HostP2pBetween, AGpuTheHostLacksIsNamedNotLookedUp) {
  Machine host;
  host.gpus.resize(2);
  host.gpus[0].address = "0000:41:00.0";
  host.gpus[1].address = "0000:c1:00.0";
  host.topology.p2p_status.read = {{"X", "OK"}, {"OK", "X"}};
  EXPECT_EQ(HostP2pBetween(host, "0000:41:00.0", "0000:c1:00.0").why.find("no GPU"),
            std::string::npos);
  for (const auto& [a, b] : std::vector<std::pair<std::string, std::string>>{
           {"0000:81:00.0", "0000:c1:00.0"}, {"0000:41:00.0", "0000:81:00.0"}}) {
    HostP2p p = HostP2pBetween(host, a, b);
    EXPECT_EQ(p.why, "the host's facts list no GPU at 0000:81:00.0") << a << " " << b;
    EXPECT_FALSE(p.decided);
  }
  HostP2p none = HostP2pBetween(Machine{}, "0000:41:00.0", "0000:c1:00.0");
  EXPECT_NE(none.why.find("the host's GPUs are not known"), std::string::npos) << none.why;
  EXPECT_FALSE(none.decided);
}

}  // namespace
}  // namespace dossier
