#include "model/json_io.h"

#include <nlohmann/json.hpp>

#include "model/visit.h"

namespace dossier {
namespace {

using nlohmann::json;

class Writer {
 public:
  Writer(json& out, json& prov, std::string path)
      : out_(out), prov_(prov), path_(std::move(path)) {}

  template <class T>
  void operator()(const char* key, const Fact<T>& f) {
    if (f.value) {
      out_[key] = *f.value;
    } else {
      out_[key] = nullptr;
    }
    if (!f.source.empty() || !f.unknown.empty() || !f.stale.empty()) {
      json e = json::object();
      if (!f.source.empty()) e["from"] = f.source;
      if (!f.value) e["unknown"] = f.unknown.empty() ? "not recorded" : f.unknown;
      if (!f.stale.empty()) e["stale"] = f.stale;
      prov_[path_ + "/" + key] = std::move(e);
    }
  }

  template <class T>
  void operator()(const char* key, const T& v) {
    if constexpr (Visitable<T>) {
      json& sub = out_[key] = json::object();
      Writer w(sub, prov_, path_ + "/" + key);
      VisitConst(v, w);
    } else if constexpr (VisitableVector<T>) {
      json& arr = out_[key] = json::array();
      for (size_t i = 0; i < v.size(); ++i) {
        arr.push_back(json::object());
        Writer w(arr.back(), prov_, path_ + "/" + key + "/" + std::to_string(i));
        VisitConst(v[i], w);
      }
    } else {
      out_[key] = v;
    }
  }

 private:
  json& out_;
  json& prov_;
  std::string path_;
};

class Reader {
 public:
  Reader(const json& in, const json& prov, std::string path, std::vector<std::string>* warnings)
      : in_(in), prov_(prov), path_(std::move(path)), warnings_(warnings) {}

  template <class T>
  void operator()(const char* key, Fact<T>& f) {
    std::string p = path_ + "/" + key;
    auto pit = prov_.find(p);
    if (pit != prov_.end() && pit->is_object()) {
      // A damaged record may hold anything here: only strings are read.
      auto str = [&](const char* k) {
        auto e = pit->find(k);
        return e != pit->end() && e->is_string() ? e->template get<std::string>() : std::string();
      };
      f.source = str("from");
      f.unknown = str("unknown");
      f.stale = str("stale");
    }
    auto it = in_.find(key);
    if (it == in_.end()) {
      f.Unknown("not in this record (written by another version?)", f.source);
      return;
    }
    if (it->is_null()) return;  // unknown; its reason (if any) came from provenance
    try {
      f.value = it->template get<T>();
    } catch (const json::exception& e) {
      f.Unknown("record holds a value of the wrong type at " + p, f.source);
      warnings_->push_back("wrong type at " + p + ": " + e.what());
    }
  }

  template <class T>
  void operator()(const char* key, T& v) {
    auto it = in_.find(key);
    if (it == in_.end() || it->is_null()) return;  // plain fields keep their defaults
    if constexpr (Visitable<T>) {
      if (!it->is_object()) return Warn(key);
      Reader r(*it, prov_, path_ + "/" + key, warnings_);
      v.visit(r);
    } else if constexpr (VisitableVector<T>) {
      if (!it->is_array()) return Warn(key);
      v.clear();
      for (size_t i = 0; i < it->size(); ++i) {
        v.emplace_back();
        if (!(*it)[i].is_object()) continue;
        Reader r((*it)[i], prov_, path_ + "/" + key + "/" + std::to_string(i), warnings_);
        v.back().visit(r);
      }
    } else {
      try {
        v = it->template get<T>();
      } catch (const json::exception&) {
        Warn(key);
      }
    }
  }

 private:
  void Warn(const char* key) { warnings_->push_back("wrong type at " + path_ + "/" + key); }

  const json& in_;
  const json& prov_;
  std::string path_;
  std::vector<std::string>* warnings_;
};

template <class T>
json ToJson(const T& m) {
  json out = json::object();
  json prov = json::object();
  Writer w(out, prov, "");
  VisitConst(m, w);
  out["provenance"] = std::move(prov);
  return out;
}

template <class T>
T FromJson(const json& j, std::vector<std::string>* warnings) {
  T m;
  if (!j.is_object()) {
    warnings->push_back("expected a JSON object");
    return m;
  }
  static const json kEmpty = json::object();
  auto pit = j.find("provenance");
  const json& prov = (pit != j.end() && pit->is_object()) ? *pit : kEmpty;
  Reader r(j, prov, "", warnings);
  m.visit(r);
  return m;
}

}  // namespace

json MachineToJson(const Machine& m) {
  return ToJson(m);
}
Machine MachineFromJson(const json& j, std::vector<std::string>* w) {
  return FromJson<Machine>(j, w);
}
json P2pToJson(const P2pMeasurement& m) {
  return ToJson(m);
}
P2pMeasurement P2pFromJson(const json& j, std::vector<std::string>* w) {
  return FromJson<P2pMeasurement>(j, w);
}
json ServeToJson(const ServeMeasurement& m) {
  return ToJson(m);
}
ServeMeasurement ServeFromJson(const json& j, std::vector<std::string>* w) {
  return FromJson<ServeMeasurement>(j, w);
}

std::string DumpJson(const nlohmann::json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace dossier
