#include "import/import_checks.h"

#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "model/fact_paths.h"
#include "util/redact.h"
#include "util/utf8.h"

namespace dossier::import {
namespace {

template <class T>
struct IsStringMap : std::false_type {};
template <class V>
struct IsStringMap<std::map<std::string, V>> : std::true_type {};

// Valid UTF-8 first (a parser library may decode "&#xD800;" into bytes no JSON can hold: the
// fuzz soak's nlohmann::json::type_error from import-virsh-dumpxml), then redacted.
void RedactString(std::string* s) {
  MakeValidUtf8InPlace(s);
  *s = RedactCommandLine(*s);
}

// A list of strings is read as an argv (an option's value is the next element) and each element
// as a command line of its own: argv, problems, notes alike.
void RedactList(std::vector<std::string>* v) {
  *v = RedactArgv(*v);
  for (auto& s : *v) RedactString(&s);
}

// Maps whose keys are variable or option names (software.env, servers[].env, servers[].flags,
// serve.server_flags): a value under a secret name (HF_TOKEN, --api-key) is redacted whole, as
// RedactEnvValue does. Other maps (packages: "google-auth" -> "2.28.0") are judged by their values.
bool NamesSecrets(const std::string& path) {
  for (std::string_view tail : {"/env", "/flags", "/server_flags"})
    if (path.ends_with(tail)) return true;
  return false;
}

// Any leaf WalkPaths hands over.
struct LeafRedactor {
  template <class T>
  void Value(T* v, const std::string& path) {
    if constexpr (std::is_same_v<T, std::string>) {
      RedactString(v);
    } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
      RedactList(v);
    } else if constexpr (std::is_same_v<T, std::vector<std::vector<std::string>>>) {
      for (auto& row : *v)
        for (auto& s : row) RedactString(&s);
    } else if constexpr (IsStringMap<T>::value) {
      const bool by_name = NamesSecrets(path);
      T out;
      for (auto& [k, val] : *v) {
        std::string key = k;
        RedactString(&key);
        auto& slot = out[key];
        slot = std::move(val);
        if constexpr (std::is_same_v<typename T::mapped_type, std::string>) {
          if (by_name && (IsSecretName(k) || IsSecretOption(k)))
            slot = kRedacted;
          else
            RedactString(&slot);
        }
      }
      *v = std::move(out);
    }
  }
  template <class T>
  void operator()(const std::string& path, T& leaf) {
    if constexpr (IsFactType<T>::value) {
      if (leaf.value) Value(&*leaf.value, path);
      RedactString(&leaf.source);
      RedactString(&leaf.unknown);
    } else {
      if (path == "/name") return;  // the machine's name is --machine, not imported text
      Value(&leaf, path);
    }
  }
};

}  // namespace

std::string RedactImportedText(std::string text) {
  RedactString(&text);
  return text;
}

void RedactImported(Imported* imported) {
  LeafRedactor r;
  WalkPaths(imported->machine, r);
  for (auto& m : imported->p2p) WalkPaths(m, r);
  for (auto& m : imported->serve) WalkPaths(m, r);
  for (auto& n : imported->notes) RedactString(&n);
}

}  // namespace dossier::import
