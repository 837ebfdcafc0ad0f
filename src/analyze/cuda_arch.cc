#include "analyze/cuda_arch.h"

#include <map>

#include "util/text.h"

namespace dossier {
namespace {

// The names torch.utils.cpp_extension accepts, with the capabilities each stands for.
const std::map<std::string, std::vector<std::string>>& NamedArches() {
  static const std::map<std::string, std::vector<std::string>> k = {
      {"kepler", {"3.5", "3.7"}}, {"maxwell", {"5.0", "5.2"}}, {"pascal", {"6.0", "6.1"}},
      {"volta", {"7.0"}},         {"turing", {"7.5"}},         {"ampere", {"8.0", "8.6"}},
      {"ada", {"8.9"}},           {"hopper", {"9.0"}},
  };
  return k;
}

}  // namespace

std::optional<CudaArch> ParseComputeCapability(std::string_view s) {
  s = Trim(s);
  if (s.starts_with("sm_")) {  // "sm_120" -> 12.0
    auto n = ParseInt(s.substr(3));
    if (!n || *n < 10 || *n > 999) return std::nullopt;
    return CudaArch{static_cast<int>(*n / 10), static_cast<int>(*n % 10)};
  }
  size_t dot = s.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  std::string_view minor = s.substr(dot + 1);
  CudaArch a;
  if (!minor.empty() && (minor.back() == 'a' || minor.back() == 'f')) {
    a.suffix = minor.back();
    minor.remove_suffix(1);
  }
  auto ma = ParseInt(s.substr(0, dot)), mi = ParseInt(minor);
  if (!ma || !mi || *ma < 1 || *ma > 99 || *mi < 0 || *mi > 9) return std::nullopt;
  a.major = static_cast<int>(*ma);
  a.minor = static_cast<int>(*mi);
  return a;
}

std::optional<std::vector<CudaArch>> ParseCudaArchList(std::string_view s) {
  std::vector<CudaArch> out;
  for (std::string_view tok : SplitAny(Unquote(Trim(s)), "; ,")) {
    bool ptx = false;
    std::string t = ToLower(tok);
    if (t.size() > 4 && t.ends_with("+ptx")) {
      ptx = true;
      t.resize(t.size() - 4);
    }
    if (auto it = NamedArches().find(t); it != NamedArches().end()) {
      for (const auto& cc : it->second) {
        CudaArch a = *ParseComputeCapability(cc);
        a.ptx = ptx;
        out.push_back(a);
      }
      continue;
    }
    auto a = ParseComputeCapability(t);
    if (!a) return std::nullopt;
    a->ptx = ptx;
    out.push_back(*a);
  }
  if (out.empty()) return std::nullopt;
  return out;
}

bool ArchListCovers(const std::vector<CudaArch>& list, const CudaArch& gpu) {
  for (const auto& a : list) {
    if (a.ptx && (a.major < gpu.major || (a.major == gpu.major && a.minor <= gpu.minor)))
      return true;
    if (a.major != gpu.major) continue;
    if (a.suffix == 'a' ? a.minor == gpu.minor : a.minor <= gpu.minor) return true;
  }
  return false;
}

}  // namespace dossier
