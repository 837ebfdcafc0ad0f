#include "util/redact.h"

#include <array>

#include "util/text.h"

namespace dossier {
namespace {

// Words that make a name secret, in lower case with '-' folded to '_'.
constexpr std::array<std::string_view, 9> kSecretWords = {"token",  "secret",      "password",
                                                          "passwd", "credential",  "api_key",
                                                          "apikey", "private_key", "access_key"};

std::string Fold(std::string_view s) {
  std::string out = ToLower(s);
  for (char& c : out)
    if (c == '-') c = '_';
  return out;
}

bool HasSecretWord(const std::string& folded) {
  for (auto w : kSecretWords)
    if (folded.find(w) != std::string::npos) return true;
  return false;
}

}  // namespace

bool IsSecretName(std::string_view name) {
  std::string f = Fold(name);
  if (HasSecretWord(f)) return true;
  // "KEY" as a word of the name (OPENAI_KEY, KEY, SIGNING_KEY) but not MONKEY or KEYBOARD.
  for (std::string_view part : Split(f, '_'))
    if (part == "key" || part == "pass" || part == "pw") return true;
  return false;
}

bool IsSecretOption(std::string_view option) {
  if (!option.starts_with('-')) return false;
  while (option.starts_with('-')) option.remove_prefix(1);
  std::string f = Fold(option);
  if (HasSecretWord(f)) return true;
  return f == "key" || f == "pass" || f == "auth" || f == "authorization";
}

std::string RedactUrl(std::string_view text) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    size_t scheme = text.find("://", i);
    if (scheme == std::string_view::npos) break;
    size_t host_begin = scheme + 3;
    size_t end = text.find_first_of(" \t\"'<>", host_begin);
    if (end == std::string_view::npos) end = text.size();
    std::string_view rest = text.substr(host_begin, end - host_begin);
    size_t slash = rest.find('/');
    std::string_view authority = rest.substr(0, slash);
    size_t at = authority.rfind('@');
    out.append(text.substr(i, host_begin - i));
    std::string url_rest;
    if (at != std::string_view::npos) {
      url_rest = std::string(kRedacted) + "@" + std::string(rest.substr(at + 1));
    } else {
      url_rest = std::string(rest);
    }
    // Query parameters with secret names.
    size_t q = url_rest.find('?');
    if (q != std::string::npos) {
      std::string query = url_rest.substr(q + 1), redone;
      for (std::string_view kv : Split(query, '&')) {
        if (!redone.empty()) redone += '&';
        size_t eq = kv.find('=');
        if (eq != std::string_view::npos && IsSecretName(kv.substr(0, eq))) {
          redone += std::string(kv.substr(0, eq + 1)) + kRedacted;
        } else {
          redone += kv;
        }
      }
      url_rest = url_rest.substr(0, q + 1) + redone;
    }
    out += url_rest;
    i = end;
  }
  out.append(text.substr(i));
  return out;
}

std::string RedactEnvValue(std::string_view name, std::string_view value) {
  if (IsSecretName(name)) return kRedacted;
  return RedactUrl(value);
}

std::vector<std::string> RedactArgv(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  out.reserve(argv.size());
  bool next_is_secret = false;
  for (const auto& a : argv) {
    if (next_is_secret && !a.starts_with("--")) {
      out.push_back(kRedacted);
      next_is_secret = false;
      continue;
    }
    next_is_secret = false;
    size_t eq = a.find('=');
    if (a.starts_with('-')) {
      std::string_view opt = std::string_view(a).substr(0, eq);
      if (IsSecretOption(opt)) {
        if (eq == std::string::npos) {
          out.push_back(a);
          next_is_secret = true;
        } else {
          out.push_back(std::string(opt) + "=" + kRedacted);
        }
        continue;
      }
    } else if (eq != std::string::npos && eq > 0 &&
               IsSecretName(std::string_view(a).substr(0, eq))) {
      // NAME=value words, as in `env HF_TOKEN=… python -m sglang…`.
      out.push_back(a.substr(0, eq + 1) + kRedacted);
      continue;
    }
    out.push_back(RedactUrl(a));
  }
  return out;
}

std::string RedactCommandLine(std::string_view line) {
  std::vector<std::string> words;
  for (auto w : SplitAny(line, " \t\n")) words.emplace_back(w);
  std::string out;
  for (const auto& w : RedactArgv(words)) {
    if (!out.empty()) out += ' ';
    out += w;
  }
  return out;
}

}  // namespace dossier
