// Walking a model struct through its visit() with a path for every leaf, vector elements named by
// their natural key rather than their position ("/pci/devices[0000:01:00.0]/link/current/gen",
// "/iommu/groups[23]/type", "/software/python_envs[/opt/venv]/packages"), so two records of one
// machine line up fact by fact even when devices were added or reordered. The diff and the
// staleness merge both walk facts this way.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "model/fact.h"
#include "model/visit.h"

namespace dossier {

template <class T>
struct IsFactType : std::false_type {};
template <class T>
struct IsFactType<Fact<T>> : std::true_type {};

namespace fact_paths_detail {

// Finds the field that names an element: the first of these keys that is a string or integer.
class KeyFinder {
 public:
  template <class T>
  void operator()(const char* key, T& v) {
    static const char* const kOrder[] = {"address", "path", "name", "id", "pid", "index", "bar"};
    int rank = 0;
    for (const char* k : kOrder) {
      if (std::string_view(key) == k) break;
      ++rank;
    }
    if (rank >= 7 || rank >= best_) return;
    if constexpr (std::is_same_v<T, std::string>) {
      if (v.empty()) return;
      key_ = v;
      best_ = rank;
    } else if constexpr (std::is_same_v<T, int64_t>) {
      key_ = std::to_string(v);
      best_ = rank;
    }
  }
  const std::string& key() const { return key_; }

 private:
  std::string key_;
  int best_ = 7;
};

}  // namespace fact_paths_detail

// Calls f(path, leaf) for every Fact<T> and every plain field (strings, numbers, maps, vectors of
// plain values) of obj. Nested structs and vectors of structs are walked into.
template <class F>
class PathWalker {
 public:
  PathWalker(std::string path, F& f) : path_(std::move(path)), f_(f) {}

  template <class T>
  void operator()(const char* key, T& v) {
    std::string p = path_ + "/" + key;
    if constexpr (IsFactType<T>::value) {
      f_(p, v);
    } else if constexpr (Visitable<T>) {
      PathWalker sub(p, f_);
      v.visit(sub);
    } else if constexpr (VisitableVector<T>) {
      std::map<std::string, int> used;
      for (size_t i = 0; i < v.size(); ++i) {
        fact_paths_detail::KeyFinder kf;
        v[i].visit(kf);
        std::string k = kf.key().empty() ? std::to_string(i) : kf.key();
        if (int n = used[k]++; n > 0) k += "#" + std::to_string(n + 1);
        PathWalker sub(p + "[" + k + "]", f_);
        v[i].visit(sub);
      }
    } else {
      f_(p, v);
    }
  }

 private:
  std::string path_;
  F& f_;
};

template <class T, class F>
void WalkPaths(T& obj, F&& f) {
  PathWalker<std::remove_reference_t<F>> w("", f);
  obj.visit(w);
}

// A leaf as text, for diffs: the value, or "unknown (reason)" for an unknown fact.
struct FlatFact {
  std::string value;
  std::string source;
  bool known = true;
};

// Every leaf of obj by path. Maps become one leaf per key ("…/packages[torch]") and matrices one
// per cell ("…/gpu_levels[0][1]"), so one changed entry is one changed path.
template <class T>
std::map<std::string, FlatFact> Flatten(const T& obj);

}  // namespace dossier

#include "model/fact_paths_impl.h"
