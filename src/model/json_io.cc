#include "model/json_io.h"

#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <type_traits>
#include <vector>

#include "model/number_domain.h"
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

// One checked reader for every value a record holds. nlohmann's get<T>() converts what it can:
// 1.5 into 1, -1 into 18446744073709551615 as a size, 1e30 into whatever the cast makes of it.
// Here a number must be whole for an integer, fit its type, and lie in its key's domain
// (model/number_domain.h); containers are read element by element. What fails is said in `why`,
// with `range` telling a value outside its domain from a value of the wrong type.
struct ReadFailure {
  std::string why;
  bool range = false;
};

template <class T>
struct IsVector : std::false_type {};
template <class E>
struct IsVector<std::vector<E>> : std::true_type {};
template <class T>
struct IsStringKeyMap : std::false_type {};
template <class E>
struct IsStringKeyMap<std::map<std::string, E>> : std::true_type {};

std::string NumberText(const json& j) {
  return j.dump();
}

template <class T>
std::optional<T> ReadValue(const json& j, std::string_view key, ReadFailure* f) {
  if constexpr (std::is_same_v<T, bool>) {
    if (!j.is_boolean()) return f->why = "not true or false", std::nullopt;
    return j.get<bool>();
  } else if constexpr (std::is_integral_v<T>) {
    if (!j.is_number()) return f->why = "not a number", std::nullopt;
    auto out_of_range = [&](const char* what) {
      f->range = true;
      f->why = NumberText(j) + " " + what;
      return std::nullopt;
    };
    T v{};
    if (j.is_number_float()) {
      double d = j.get<double>();
      if (!std::isfinite(d) || d != std::trunc(d)) return out_of_range("is not a whole number");
      // The type's range, in doubles: [min, max + 1) (max + 1 is a power of two, exact).
      double lo = static_cast<double>(std::numeric_limits<T>::min());
      double hi = std::ldexp(1.0, std::numeric_limits<T>::digits);
      if (d < lo || d >= hi) return out_of_range("does not fit the field's type");
      v = static_cast<T>(d);
    } else if (j.is_number_unsigned()) {
      uint64_t u = j.get<uint64_t>();
      if (u > static_cast<uint64_t>(std::numeric_limits<T>::max()))
        return out_of_range("does not fit the field's type");
      v = static_cast<T>(u);
    } else {
      int64_t s = j.get<int64_t>();
      if constexpr (std::is_unsigned_v<T>) {
        if (s < 0) return out_of_range("is below 0 (a size or count)");
      } else {
        if (s < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
            s > static_cast<int64_t>(std::numeric_limits<T>::max()))
          return out_of_range("does not fit the field's type");
      }
      v = static_cast<T>(s);
    }
    if (auto why = OutsideDomain(key, static_cast<double>(v))) {
      f->range = true;
      f->why = NumberText(j) + " is " + *why;
      return std::nullopt;
    }
    return v;
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!j.is_number()) return f->why = "not a number", std::nullopt;
    double d = j.get<double>();
    if (auto why = OutsideDomain(key, d)) {
      f->range = true;
      f->why = NumberText(j) + " is " + *why;
      return std::nullopt;
    }
    return static_cast<T>(d);
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!j.is_string()) return f->why = "not a string", std::nullopt;
    return j.get<std::string>();
  } else if constexpr (IsVector<T>::value) {
    if (!j.is_array()) return f->why = "not an array", std::nullopt;
    T out;
    for (const auto& e : j) {
      auto v = ReadValue<typename T::value_type>(e, key, f);
      if (!v) return std::nullopt;
      out.push_back(std::move(*v));
    }
    return out;
  } else if constexpr (IsStringKeyMap<T>::value) {
    if (!j.is_object()) return f->why = "not an object", std::nullopt;
    T out;
    for (auto it = j.begin(); it != j.end(); ++it) {
      auto v = ReadValue<typename T::mapped_type>(it.value(), key, f);
      if (!v) return std::nullopt;
      out.emplace(it.key(), std::move(*v));
    }
    return out;
  } else {
    try {
      return j.template get<T>();
    } catch (const json::exception& e) {
      f->why = e.what();
      return std::nullopt;
    }
  }
}

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
    ReadFailure fail;
    if (auto v = ReadValue<T>(*it, key, &fail)) {
      f.value = std::move(*v);
    } else if (fail.range) {
      f.Unknown("record holds a value outside its domain at " + p + " (" + fail.why + ")",
                f.source);
      warnings_->push_back("value outside its domain at " + p + ": " + fail.why);
    } else {
      f.Unknown("record holds a value of the wrong type at " + p, f.source);
      warnings_->push_back("wrong type at " + p + ": " + fail.why);
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
      ReadFailure fail;
      if (auto r = ReadValue<T>(*it, key, &fail)) {
        v = std::move(*r);
      } else if (fail.range) {  // the default stays
        warnings_->push_back("value outside its domain at " + path_ + "/" + key + ": " + fail.why);
      } else {
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
