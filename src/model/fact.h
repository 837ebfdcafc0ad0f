// Fact<T>: one thing known (or not) about a machine, with where it came from.
//
// Unknown is a value: a fact that could not be read keeps the reason ("needs root", "file absent",
// "not an integer: 'abc'") instead of a zero. `source` names what was read: a machine path
// ("/sys/bus/pci/devices/0000:01:00.0/numa_node"), a path and line ("/proc/cpuinfo:5"), a library
// call ("nvml:nvmlDeviceGetName"), an imported file and line, or a note. The record a fact belongs
// to carries the rest of its provenance (kind, time, boot id).
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace dossier {

template <class T>
struct Fact {
  std::optional<T> value;
  std::string source;
  std::string unknown;  // why value is absent; empty when known
  // Why this value may no longer hold: seen in an earlier boot, or taken from an older record
  // because the newest could not read it. Empty for a current fact. Set by analyze/stale.cc.
  std::string stale;

  bool known() const { return value.has_value(); }
  const T& operator*() const { return *value; }
  const T* operator->() const { return &*value; }
  const T* get() const { return value ? &*value : nullptr; }
  T value_or(T other) const { return value ? *value : std::move(other); }

  void Set(T v, std::string src) {
    value = std::move(v);
    source = std::move(src);
    unknown.clear();
    stale.clear();
  }
  void Unknown(std::string reason, std::string src = {}) {
    value.reset();
    unknown = std::move(reason);
    source = std::move(src);
  }
  // Keeps the first reason when several sources were tried and none answered.
  bool operator==(const Fact& o) const { return value == o.value; }
};

// A fact with a value, for building fixtures and records in code.
template <class T>
Fact<T> Known(T v, std::string src) {
  Fact<T> f;
  f.Set(std::move(v), std::move(src));
  return f;
}

}  // namespace dossier
