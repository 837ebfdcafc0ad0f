#include "probe/read_fact.h"

#include "util/text.h"

namespace dossier {

std::string ReasonFor(const Error& e) {
  switch (e.kind) {
    case Error::kNotFound:
      return "file absent";
    case Error::kPermission:
      return "needs root";
    default:
      return e.message;
  }
}

std::string ReasonForDir(const Error& e) {
  return e.kind == Error::kNotFound ? "directory absent" : ReasonFor(e);
}

void ReadStringFact(const RootFs& fs, std::string_view path, Fact<std::string>* out) {
  auto v = fs.ReadValue(path);
  if (!v) return out->Unknown(ReasonFor(v.error()), std::string(path));
  if (v->empty()) return out->Unknown("empty", std::string(path));
  out->Set(*v, std::string(path));
}

void ReadIntFact(const RootFs& fs, std::string_view path, Fact<int64_t>* out, int base) {
  auto v = fs.ReadValue(path);
  if (!v) return out->Unknown(ReasonFor(v.error()), std::string(path));
  auto n = ParseInt(*v, base);
  if (!n) return out->Unknown("not an integer: '" + Printable(*v, 40) + "'", std::string(path));
  out->Set(*n, std::string(path));
}

}  // namespace dossier
