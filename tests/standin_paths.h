// Where the stand-in NVML and CUDA libraries (tests/standins/) are built, and a scope that picks
// the fixture machine they answer for (DOSSIER_STANDIN).
#pragma once

#include <cstdlib>
#include <string>

namespace dossier::testing {

inline std::string StandinLib(const std::string& name) {
  return std::string(DOSSIER_STANDIN_DIR) + "/lib" + name + ".so";
}
inline std::string NvmlStandin() {
  return StandinLib("nvml_standin");
}
inline std::string NvmlStandinPlain() {
  return StandinLib("nvml_standin_plain");
}
inline std::string CudaStandin() {
  return StandinLib("cuda_standin");
}

class StandinFixture {
 public:
  explicit StandinFixture(const char* name) { ::setenv("DOSSIER_STANDIN", name, 1); }
  ~StandinFixture() { ::unsetenv("DOSSIER_STANDIN"); }
};

}  // namespace dossier::testing
