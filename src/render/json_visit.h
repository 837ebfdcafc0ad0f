// Plain data structs (findings, changes, notes, the plan) to JSON through their visit(): every
// field at its key, nested structs as objects, vectors of structs as arrays. Unlike the machine
// model (model/json_io.h) they carry no provenance object: their sources are fields.
#pragma once

#include <nlohmann/json.hpp>

#include "model/fact.h"
#include "model/visit.h"

namespace dossier {

class JsonVisitor {
 public:
  explicit JsonVisitor(nlohmann::json& out) : out_(out) {}
  template <class T>
  void operator()(const char* key, const T& v) {
    if constexpr (Visitable<T>) {
      nlohmann::json sub = nlohmann::json::object();
      JsonVisitor w(sub);
      VisitConst(v, w);
      out_[key] = std::move(sub);
    } else if constexpr (VisitableVector<T>) {
      nlohmann::json arr = nlohmann::json::array();
      for (const auto& e : v) arr.push_back(ToJsonPlain(e));
      out_[key] = std::move(arr);
    } else {
      out_[key] = v;
    }
  }
  template <class T>
  static nlohmann::json ToJsonPlain(const T& v) {
    nlohmann::json out = nlohmann::json::object();
    JsonVisitor w(out);
    VisitConst(v, w);
    return out;
  }

 private:
  nlohmann::json& out_;
};

template <class T>
nlohmann::json PlainToJson(const T& v) {
  return JsonVisitor::ToJsonPlain(v);
}

template <class T>
nlohmann::json PlainArray(const std::vector<T>& v) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& e : v) arr.push_back(PlainToJson(e));
  return arr;
}

}  // namespace dossier
