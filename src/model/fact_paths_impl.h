// Implementation of Flatten() (model/fact_paths.h): leaf values to text.
#pragma once

#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace dossier {
namespace fact_paths_detail {

inline std::string Text(const std::string& v) {
  return v;
}
inline std::string Text(int64_t v) {
  return std::to_string(v);
}
inline std::string Text(uint64_t v) {
  return std::to_string(v);
}
inline std::string Text(bool v) {
  return v ? "true" : "false";
}
inline std::string Text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}
template <class E>
std::string Text(const std::vector<E>& v) {
  std::string out;
  for (const auto& e : v) out += (out.empty() ? "" : ", ") + Text(e);
  return out;
}

class Flattener {
 public:
  explicit Flattener(std::map<std::string, FlatFact>* out) : out_(out) {}

  template <class T>
  void operator()(const std::string& path, const Fact<T>& f) {
    if (f.known()) {
      (*out_)[path] = {Text(*f), f.source, true};
    } else {
      (*out_)[path] = {
          "unknown (" + (f.unknown.empty() ? std::string("not recorded") : f.unknown) + ")",
          f.source, false};
    }
  }
  void operator()(const std::string& path, const std::map<std::string, std::string>& m) {
    for (const auto& [k, v] : m) (*out_)[path + "[" + k + "]"] = {v, "", true};
  }
  void operator()(const std::string& path, const std::vector<std::vector<std::string>>& mx) {
    for (size_t i = 0; i < mx.size(); ++i)
      for (size_t j = 0; j < mx[i].size(); ++j)
        (*out_)[path + "[" + std::to_string(i) + "][" + std::to_string(j) + "]"] = {mx[i][j], "",
                                                                                    true};
  }
  template <class T>
  void operator()(const std::string& path, const T& v) {
    if constexpr (requires { Text(v); }) (*out_)[path] = {Text(v), "", true};
  }

 private:
  std::map<std::string, FlatFact>* out_;
};

}  // namespace fact_paths_detail

template <class T>
std::map<std::string, FlatFact> Flatten(const T& obj) {
  std::map<std::string, FlatFact> out;
  fact_paths_detail::Flattener f(&out);
  auto cb = [&](const std::string& p, const auto& leaf) { f(p, leaf); };
  WalkPaths(const_cast<T&>(obj), cb);  // visit() is non-const; Flatten only reads
  return out;
}

}  // namespace dossier
