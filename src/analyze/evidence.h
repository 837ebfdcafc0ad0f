// Building evidence lines from facts: the value as text ("unknown (reason)" when unknown) and the
// fact's source, so every finding says where each of its facts came from.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyze/finding.h"
#include "model/fact.h"

namespace dossier {

inline std::string ValueText(const std::string& v) {
  return v;
}
inline std::string ValueText(int64_t v) {
  return std::to_string(v);
}
inline std::string ValueText(uint64_t v) {
  return std::to_string(v);
}
inline std::string ValueText(double v) {
  return std::to_string(v);
}
inline std::string ValueText(bool v) {
  return v ? "yes" : "no";
}
inline std::string ValueText(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : " ") + s;
  return out.empty() ? "none" : out;
}
inline std::string ValueText(const std::vector<int64_t>& v) {
  std::string out;
  for (auto n : v) out += (out.empty() ? "" : " ") + std::to_string(n);
  return out;
}

template <class T>
std::string FactText(const Fact<T>& f) {
  if (f.known()) return ValueText(*f);
  return "unknown (" + (f.unknown.empty() ? std::string("not recorded") : f.unknown) + ")";
}

template <class T>
Evidence Ev(std::string what, const Fact<T>& f) {
  return Evidence{std::move(what), FactText(f), f.source, f.stale};
}

inline Evidence Ev(std::string what, std::string value, std::string source) {
  return Evidence{std::move(what), std::move(value), std::move(source), ""};
}

}  // namespace dossier
