#include "util/redact.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>

#include "util/text.h"

namespace dossier {
namespace {

// The rules, as word tables. A name is cut into words (at '_', '-', '.', ' ' and camelCase
// humps) and judged by them, never by substrings: "tokens", "tokenizer", "keyboard" are other
// words than "token" and "key".

// Secret wherever they stand in a name: AWS_SECRET_ACCESS_KEY_ID, DB_PASSWORD_VALUE.
constexpr std::array<std::string_view, 8> kSecretAnywhere = {
    "secret", "secrets",    "password",   "passwords",
    "passwd", "passphrase", "credential", "credentials"};
// Secret as the name's last word: HF_TOKEN, OPENAI_API_KEY, HF_HUB_AUTH, X-Amz-Signature, sig.
// Not as an earlier one: HF_TOKEN_PATH names a file, --auth-mode a mode, SSH_AUTH_SOCK a socket.
constexpr std::array<std::string_view, 17> kSecretLast = {
    "token",     "key",     "apikey",     "auth",      "authorization", "signature",
    "sig",       "pass",    "pw",         "pwd",       "cookie",        "accesstoken",
    "authtoken", "hftoken", "privatekey", "secretkey", "accesskey"};
// Compound words (words written together, no separator: `rootpassword=`, `rootpw=`,
// `cipassword:`, `clientsecret`). English compounds are head-final: the last part says what the
// thing is, so "rootpassword" is a password and "passwordless" or "secretary" are not. A word is
// secret when it ENDS in one of these heads (a plural 's' allowed)...
//   - anywhere in the name, for the heads that are secret in any position (kSecretAnywhere);
constexpr std::array<std::string_view, 5> kSecretHeads = {"password", "passwd", "passphrase",
                                                          "secret", "credential"};
//   - as the last word only, for heads that are secret as the last word (kSecretLast): "token"
//     (hftoken, csrftoken), "pw"/"pwd" (rootpw, dbpwd: no English word ends so). "key", "pass"
//     and "auth" are not heads here: monkey, hotkey, bypass, compass, oauth-the-flag are other
//     words; their secret compounds are listed whole (apikey, accesskey, …) or with a modifier
//     (kKeyModifiers).
constexpr std::array<std::string_view, 3> kSecretLastHeads = {"token", "pw", "pwd"};
//   - "key" as the head after one of these modifiers: apikey, authkey, sshkey, signingkey…
constexpr std::array<std::string_view, 14> kKeyModifiers = {
    "api",    "access",  "secret", "private", "auth", "pass", "signing",
    "client", "session", "master", "license", "ssh",  "hmac", "encryption"};
// Short options that take a secret, tool by tool: `openai -k KEY` (the OpenAI CLI), llama.cpp's
// `-hft TOKEN` (--hf-token). Other short options are not judged by name (-t is threads, -p port).
constexpr std::array<std::string_view, 2> kSecretShortOptions = {"-k", "-hft"};
// Authentication schemes whose next word is a credential (RFC 9110 section 11).
constexpr std::array<std::string_view, 2> kSchemes = {"bearer", "basic"};

template <size_t N>
bool In(const std::array<std::string_view, N>& table, std::string_view w) {
  return std::find(table.begin(), table.end(), w) != table.end();
}

std::vector<std::string> Words(std::string_view name) {
  std::vector<std::string> out;
  std::string cur;
  char prev = 0;
  for (char c : name) {
    bool alnum = std::isalnum(static_cast<unsigned char>(c)) != 0;
    bool hump = std::isupper(static_cast<unsigned char>(c)) &&
                std::islower(static_cast<unsigned char>(prev));
    if (!alnum || hump) {
      if (!cur.empty()) out.push_back(std::move(cur));
      cur.clear();
    }
    if (alnum) cur += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    prev = c;
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// Characters that end a value in free text.
bool EndsValue(char c) {
  return IsSpace(c) || c == '"' || c == '\'' || c == ',' || c == ';' || c == '&' || c == '}' ||
         c == ']' || c == ')' || c == '>' || c == '<';
}

bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == '.';
}

// Query and fragment parameters of a URL (after '?' or '#'): values of secret keys redacted.
std::string RedactParams(std::string_view params) {
  std::string out;
  size_t i = 0;
  while (i <= params.size()) {
    size_t j = params.find_first_of("&;#", i);
    if (j == std::string_view::npos) j = params.size();
    std::string_view kv = params.substr(i, j - i);
    size_t eq = kv.find('=');
    if (eq != std::string_view::npos && IsSecretName(kv.substr(0, eq))) {
      out.append(kv.substr(0, eq + 1)).append(kRedacted);
    } else {
      out.append(kv);
    }
    if (j < params.size()) out += params[j];
    i = j + 1;
  }
  return out;
}

// Pass 2: "KEY": "VALUE" and 'KEY': VALUE pairs (JSON arguments, Python dicts, echoed bodies).
// Found from each ':' backwards, so a stray quote earlier in the text cannot hide a pair.
std::string RedactPairs(std::string_view s) {
  std::string out;
  size_t done = 0;  // s[0, done) is in out
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != ':' || i == 0) continue;
    size_t j = i;
    while (j > 0 && (s[j - 1] == ' ' || s[j - 1] == '\t')) --j;
    if (j == 0 || (s[j - 1] != '"' && s[j - 1] != '\'')) continue;
    char q = s[j - 1];
    size_t k = j - 1;
    while (k > 0 && IsNameChar(s[k - 1])) --k;
    if (k == 0 || s[k - 1] != q || k == j - 1 || k - 1 < done) continue;
    if (!IsSecretName(s.substr(k, j - 1 - k))) continue;
    size_t v = i + 1;
    while (v < s.size() && IsSpace(s[v])) ++v;
    if (v >= s.size() || s[v] == '{' || s[v] == '[') continue;  // nested: its keys are judged
    size_t e;
    if (s[v] == '"' || s[v] == '\'') {
      e = v + 1;
      while (e < s.size() && s[e] != s[v]) e += (s[e] == '\\') ? 2 : 1;
      e = std::min(e, s.size());
      out.append(s.substr(done, v + 1 - done)).append(kRedacted);
      done = e;  // the closing quote stays
    } else {
      e = v;
      while (e < s.size() && !EndsValue(s[e])) ++e;
      if (e == v) continue;
      out.append(s.substr(done, v - done)).append(kRedacted);
      done = e;
    }
    i = done > 0 ? done - 1 : 0;
  }
  out.append(s.substr(std::min(done, s.size())));
  return out;
}

// The end of a '…' or "…" segment that opens at s[i] (just past its closing quote; a backslash
// escapes in "…"), or of the line when it does not close there.
size_t QuotedSegmentEnd(std::string_view s, size_t i) {
  char q = s[i];
  size_t k = i + 1;
  while (k < s.size() && s[k] != q && s[k] != '\n') k += (s[k] == '\\' && q == '"') ? 2 : 1;
  if (k < s.size() && s[k] == q) return k + 1;
  return std::min(k, s.size());
}

// The end of the shell word that begins at s[i]: unquoted characters up to a blank, and quoted
// segments (blanks inside them included) up to their close.
size_t ShellWordEnd(std::string_view s, size_t i) {
  size_t k = i;
  while (k < s.size() && !IsSpace(s[k])) {
    if (s[k] == '\'' || s[k] == '"')
      k = QuotedSegmentEnd(s, k);
    else
      k += (s[k] == '\\' && k + 1 < s.size() && !IsSpace(s[k + 1])) ? 2 : 1;
  }
  return std::min(k, s.size());
}

// Pass 3: header lines "Authorization: Bearer X", "X-Api-Key: X" (a bare name before ':'),
// NAME=value and --name=value words. A header's value runs to the end of the line; NAME=value's
// to the end of the word, quotes inside it included (a password may hold ',', ';', ')' or a
// quote: `rootpw=a"b` is one shell word). Inside a double-quoted string (a JSON value, a quoted
// shell word) both end at the string's closing quote, and after a name that a single quote opened
// ('X-Api-Key: X') at that quote; a backslash escapes the next character in a "…" string.
std::string RedactNamedValues(std::string_view s) {
  std::string out;
  size_t i = 0;
  bool in_dq = false;  // inside "…": a '"' not escaped toggles it
  auto closes = [&](size_t k, char opener) {
    return (in_dq && s[k] == '"') || (opener == '\'' && s[k] == '\'');
  };
  while (i < s.size()) {
    bool word_start = i == 0 || IsSpace(s[i - 1]) || s[i - 1] == '"' || s[i - 1] == '\'' ||
                      s[i - 1] == ',' || s[i - 1] == '{' || s[i - 1] == '(' || s[i - 1] == ';' ||
                      s[i - 1] == '=';  // --env=HF_TOKEN=X, --header=X-Api-Key: X
    if (!word_start || !IsNameChar(s[i])) {
      if (s[i] == '\\' && in_dq && i + 1 < s.size()) {
        out.append(s.substr(i, 2));
        i += 2;
        continue;
      }
      if (s[i] == '"') in_dq = !in_dq;
      out += s[i++];
      continue;
    }
    char opener = i > 0 && s[i - 1] == '\'' ? '\'' : 0;
    size_t e = i;
    while (e < s.size() && IsNameChar(s[e])) ++e;
    std::string_view name = s.substr(i, e - i);
    out.append(name);
    i = e;
    if (i >= s.size() || (s[i] != ':' && s[i] != '=') || !IsSecretName(name)) continue;
    if (s[i] == ':' && i + 2 < s.size() && s[i + 1] == '/' && s[i + 2] == '/') continue;  // URL
    bool header = s[i] == ':';
    out += s[i++];
    if (header) {  // "X-Api-Key: X": blanks after the colon; NAME=value has none, so
                   // "--hf-token= --api-key X" is an empty value, not "--api-key" as the value
      size_t v = i;
      while (v < s.size() && (s[v] == ' ' || s[v] == '\t')) ++v;
      out.append(s.substr(i, v - i));
      i = v;
    }
    size_t end = i;
    auto skip = [&](size_t k) { return (s[k] == '\\' && in_dq) ? 2 : 1; };
    if (header) {
      while (end < s.size() && s[end] != '\n' && s[end] != '\r' && !closes(end, opener))
        end += skip(end);
      end = std::min(end, s.size());
    } else if (in_dq || opener) {
      // A '…' segment inside the "…" string runs to its own close (HF_HUB_AUTH='Bearer X' after
      // a stray '"' earlier on the line: the fuzz corpus's case).
      while (end < s.size() && !IsSpace(s[end]) && !closes(end, opener)) {
        if (s[end] == '\'' && opener != '\'')
          end = QuotedSegmentEnd(s, end);
        else
          end += skip(end);
      }
      end = std::min(end, s.size());
    } else {
      // The value is the shell word: NAME="two words", NAME=''/a'b', rootpw=a"b;c". One quoted
      // segment keeps its quotes around the mark; anything else is replaced whole.
      end = ShellWordEnd(s, i);
      char q = i < s.size() ? s[i] : 0;
      if ((q == '"' || q == '\'') && end - i >= 2 && s[end - 1] == q &&
          QuotedSegmentEnd(s, i) == end) {
        out += q;
        if (end - i > 2) out += kRedacted;
        out += q;
        i = end;
        continue;
      }
    }
    if (end > i) out += kRedacted;  // (a value already redacted stays as it was)
    i = end;
  }
  return out;
}

// A credential, not an English word after "Bearer" or "Basic": long enough, only the characters
// of RFC 9110's token68, and one that a lower-case word lacks (a capital after the first, a
// digit, a symbol).
bool LooksCredential(std::string_view t, size_t min_size) {
  if (t.size() < min_size) return false;
  bool mixed = false;
  for (size_t k = 0; k < t.size(); ++k) {
    unsigned char c = static_cast<unsigned char>(t[k]);
    bool symbol = c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/' || c == '=';
    if (!std::isalnum(c) && !symbol) return false;
    if ((k > 0 && std::isupper(c)) || std::isdigit(c) || symbol) mixed = true;
  }
  return mixed;
}

// Pass 4: "Bearer X", "Basic X" anywhere (an environment value, an echoed header).
std::string RedactSchemes(std::string_view s) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    bool word_start = i == 0 || !std::isalnum(static_cast<unsigned char>(s[i - 1]));
    if (!word_start) {
      out += s[i++];
      continue;
    }
    size_t e = i;
    while (e < s.size() && std::isalpha(static_cast<unsigned char>(s[e]))) ++e;
    if (e == i || e >= s.size() || !IsSpace(s[e]) || !In(kSchemes, ToLower(s.substr(i, e - i)))) {
      // Not a scheme: the word goes as it is, whole (scanning it again from each of its letters
      // made a 100 KB value of letters cost seconds).
      size_t stop = std::max(e, i + 1);
      out.append(s.substr(i, stop - i));
      i = stop;
      continue;
    }
    bool basic = ToLower(s.substr(i, e - i)) == "basic";
    size_t v = e;
    while (v < s.size() && (s[v] == ' ' || s[v] == '\t')) ++v;
    size_t end = v;
    bool looks;
    if (basic) {
      // "Basic" is also an English word: only a base64-looking credential follows the scheme.
      while (end < s.size() && !EndsValue(s[end])) ++end;
      std::string_view token = s.substr(v, end - v);
      looks = token != kRedacted && LooksCredential(token, 8);
    } else {
      // A bearer token is the next word, whatever it holds ('&', '!', quotes: a password pasted
      // as a token); the quotes and punctuation that close the word's context are left. It is
      // not a credential when it is an English word ("Bearer of news": lower-case letters).
      while (end < s.size() && !IsSpace(s[end])) ++end;
      while (end > v && std::string_view("\"',;)}]>").find(s[end - 1]) != std::string_view::npos)
        --end;
      std::string_view token = s.substr(v, end - v);
      bool word =
          std::all_of(token.begin(), token.end(), [](char c) { return c >= 'a' && c <= 'z'; });
      looks = token.size() >= 6 && !word && !s.substr(v).starts_with(kRedacted);
    }
    out.append(s.substr(i, v - i));
    if (looks) {
      out += kRedacted;
      i = end;
    } else {
      i = v;
    }
  }
  return out;
}

}  // namespace

namespace {

// Whether `w` ends in one of the heads, alone or after a plural 's' (rootpasswords), with at least
// one letter before it (the bare word is judged by the word tables).
template <size_t N>
bool EndsInHead(const std::array<std::string_view, N>& heads, std::string_view w) {
  if (w.ends_with('s')) w.remove_suffix(1);
  for (std::string_view h : heads)
    if (w.size() > h.size() && w.ends_with(h)) return true;
  return false;
}

bool IsSecretKeyCompound(std::string_view w) {
  if (w.ends_with('s')) w.remove_suffix(1);
  if (!w.ends_with("key") || w.size() == 3) return false;
  w.remove_suffix(3);
  return In(kKeyModifiers, w);
}

}  // namespace

bool IsSecretName(std::string_view name) {
  std::vector<std::string> words = Words(name);
  if (words.empty()) return false;
  for (const auto& w : words)
    if (In(kSecretAnywhere, w) || EndsInHead(kSecretHeads, w)) return true;
  const std::string& last = words.back();
  return In(kSecretLast, last) || EndsInHead(kSecretLastHeads, last) || IsSecretKeyCompound(last);
}

bool IsSecretOption(std::string_view option) {
  if (!option.starts_with('-')) return false;
  if (In(kSecretShortOptions, option)) return true;
  if (!option.starts_with("--") && option.size() <= 3) return false;  // -t, -p, -tp: not named
  while (option.starts_with('-')) option.remove_prefix(1);
  return IsSecretName(option);
}

std::string RedactUrl(std::string_view text) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    size_t scheme = text.find("://", i);
    if (scheme == std::string_view::npos) break;
    size_t host_begin = scheme + 3;
    size_t end = text.find_first_of(" \t\r\n\"'<>`", host_begin);
    if (end == std::string_view::npos) end = text.size();
    std::string_view rest = text.substr(host_begin, end - host_begin);
    out.append(text.substr(i, host_begin - i));
    // The user information ends at the last '@' of the authority. A password may hold '/'
    // unescaped (people paste them so): then the '@' lies past the first '/', and a ':' before
    // that '/' says the part before the '@' is "user:password", not a path.
    size_t auth_end = std::min(rest.find_first_of("/?#"), rest.size());
    size_t at = rest.substr(0, auth_end).rfind('@');
    if (at == std::string_view::npos) {
      std::string_view region = rest.substr(0, std::min(rest.find_first_of("?#"), rest.size()));
      size_t at2 = region.rfind('@');
      size_t colon = region.find(':');
      size_t slash = region.find('/');
      std::string_view after_colon =
          colon == std::string_view::npos ? "" : region.substr(colon + 1, slash - colon - 1);
      bool port = !after_colon.empty() && std::all_of(after_colon.begin(), after_colon.end(),
                                                      [](char c) { return c >= '0' && c <= '9'; });
      if (at2 != std::string_view::npos && colon != std::string_view::npos && colon < at2 &&
          colon < slash && !port)
        at = at2;
    }
    std::string url_rest;
    if (at != std::string_view::npos) {
      url_rest = std::string(kRedacted) + "@" + std::string(rest.substr(at + 1));
    } else {
      url_rest = std::string(rest);
    }
    size_t q = url_rest.find_first_of("?#");
    if (q != std::string::npos)
      url_rest = url_rest.substr(0, q + 1) + RedactParams(url_rest.substr(q + 1));
    out += url_rest;
    i = end;
  }
  out.append(text.substr(i));
  return out;
}

std::string RedactText(std::string_view text) {
  return RedactSchemes(RedactNamedValues(RedactPairs(RedactUrl(text))));
}

std::string RedactEnvValue(std::string_view name, std::string_view value) {
  if (IsSecretName(name)) return kRedacted;
  return RedactCommandLine(value);
}

namespace {

// A word that ends in a secret key and its ':' ("{\"token\":", "{token:", "X-Api-Key:"): a JSON
// body or header split into words by a shell, whose value is the next word.
bool EndsWithSecretKey(std::string_view a) {
  if (!a.ends_with(':')) return false;
  a.remove_suffix(1);
  if (!a.empty() && (a.back() == '"' || a.back() == '\'')) a.remove_suffix(1);
  size_t k = a.size();
  while (k > 0 && IsNameChar(a[k - 1])) --k;
  return k < a.size() && IsSecretName(a.substr(k));
}

}  // namespace

std::vector<std::string> RedactArgv(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  out.reserve(argv.size());
  bool next_is_secret = false;
  char open_quote = 0;  // a redacted value opened a quote: the words up to its close are the value
  // A quote the key's word opened ("\"Authorization:" of -H "Authorization: Bearer X"): the value's
  // word closes it, and the words after it are not the value.
  char key_quote = 0;
  auto odd_quote = [](const std::string& w) {
    for (char q : {'\'', '"'})
      if (std::count(w.begin(), w.end(), q) % 2 == 1) return q;
    return '\0';
  };
  // Word i ends a secret key: "{\"token\":", or ":" after "{\"token\"" ({"token" : "X"} split).
  auto ends_key = [&](size_t i) {
    return EndsWithSecretKey(argv[i]) ||
           (argv[i] == ":" && i > 0 && EndsWithSecretKey(argv[i - 1] + ":"));
  };
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (open_quote) {
      out.push_back(kRedacted);
      if (a.find(open_quote) != std::string::npos) {
        open_quote = 0;
        next_is_secret = ends_key(i);  // the quote closed before a key: its value is next
      }
      continue;
    }
    if (next_is_secret && !a.starts_with("--") && !IsSecretOption(a)) {
      std::string v = kRedacted;
      // The value goes on: "--token 'two words'", "--api-key Bearer X", "--api-key X-Api-Key: X".
      next_is_secret = a.ends_with(':') || In(kSchemes, ToLower(a));
      for (char q : {'\'', '"'}) {
        if (std::count(a.begin(), a.end(), q) % 2 == 0) continue;
        if (q == key_quote) {  // closes the key's quote: kept, as the quote it is
          key_quote = 0;
          if (a.ends_with(q)) v += q;
        } else {
          open_quote = q;
        }
      }
      out.push_back(std::move(v));
      if (!next_is_secret) key_quote = 0;
      continue;
    }
    next_is_secret = false;
    key_quote = 0;
    // An option opening a quoted string ("--api-key X" as a JSON value, VAR='--token X'): the
    // same option; the value's word closes the quote.
    if ((a.starts_with("\"-") || a.starts_with("'-")) && a.size() > 2 &&
        a.find('=') == std::string::npos && a.find(a[0], 1) == std::string::npos &&
        IsSecretOption(std::string_view(a).substr(1))) {
      out.push_back(a);
      next_is_secret = true;
      key_quote = a[0];
      continue;
    }
    if (a.starts_with('-') && a.size() > 1) {
      size_t eq = a.find('=');
      std::string_view opt = std::string_view(a).substr(0, eq);
      if (IsSecretOption(opt)) {
        if (eq == std::string::npos) {
          out.push_back(a);
          next_is_secret = true;
        } else if (eq + 1 == a.size()) {
          out.push_back(a);  // "--hf-token=": empty, and the next word is not its value
        } else {
          out.push_back(std::string(opt) + "=" + kRedacted);
        }
        continue;
      }
      if (eq != std::string::npos) {
        // --env=HF_TOKEN=X, --header=X-Api-Key: X, --hf-overrides={"api_key": …}, --url=…
        out.push_back(std::string(opt) + "=" + RedactText(std::string_view(a).substr(eq + 1)));
        continue;
      }
    }
    out.push_back(RedactText(a));
    next_is_secret = ends_key(i);  // {"token": then its value
    key_quote = next_is_secret ? odd_quote(a) : 0;
  }
  return out;
}

std::string RedactCommandLine(std::string_view line) {
  // The forms of free text first, on the line as it came: a word pass that takes a stray quote
  // in an option's value ("--api-key sk-a\"bc") to run on to the next quote would otherwise
  // swallow a JSON key ("{\"token\":") and leave its value for no pass to find (fuzz_soak).
  const std::string text = RedactText(line);
  line = text;
  std::vector<std::string> words;
  std::vector<std::string> seps;  // seps[k] precedes words[k]; seps.back() trails
  size_t i = 0;
  while (true) {
    size_t b = i;
    while (i < line.size() && IsSpace(line[i])) ++i;
    seps.emplace_back(line.substr(b, i - b));
    if (i >= line.size()) break;
    size_t e = i;
    while (e < line.size() && !IsSpace(line[e])) ++e;
    words.emplace_back(line.substr(i, e - i));
    i = e;
  }
  std::vector<std::string> red = RedactArgv(words);
  std::string out;
  for (size_t k = 0; k < red.size(); ++k) out += seps[k] + red[k];
  out += seps.back();
  // Forms that span words ("Authorization: Bearer X" split by the shell, JSON with spaces).
  return RedactText(out);
}

namespace {

// Where a PEM private key block begins or ends in `line` ("-----BEGIN OPENSSH PRIVATE KEY-----",
// "-----END RSA PRIVATE KEY-----", "-----BEGIN PGP PRIVATE KEY BLOCK-----"); npos when not.
size_t PemBoundary(std::string_view line, std::string_view word, size_t from = 0) {
  std::string marker = "-----" + std::string(word) + " ";
  for (size_t at = line.find(marker, from); at != std::string_view::npos;
       at = line.find(marker, at + 1)) {
    size_t close = line.find("-----", at + marker.size());
    if (close == std::string_view::npos) break;  // no later marker closes either
    std::string_view label = line.substr(at + marker.size(), close - at - marker.size());
    if (label.find("PRIVATE KEY") != std::string_view::npos) return at;
  }
  return std::string_view::npos;
}

// The text after the "-----END … -----" marker at `at`.
std::string_view AfterPemEnd(std::string_view line, size_t at) {
  size_t close = line.find("-----", at + 9);
  return close == std::string_view::npos ? std::string_view() : line.substr(close + 5);
}

}  // namespace

std::string PasteRedactor::Line(std::string_view line) {
  if (in_key_) {
    size_t end = PemBoundary(line, "END");
    if (end == std::string_view::npos) return "";
    in_key_ = false;
    return Line(AfterPemEnd(line, end));  // what follows the block on its last line
  }
  size_t begin = PemBoundary(line, "BEGIN");
  if (begin == std::string_view::npos) return RedactCommandLine(line);
  std::string out = RedactCommandLine(line.substr(0, begin)) + kRedactedKey;
  size_t end = PemBoundary(line, "END", begin);
  if (end == std::string_view::npos) {
    in_key_ = true;
    return out;
  }
  return out + Line(AfterPemEnd(line, end));  // a block with its newlines lost: one line
}

namespace {

// A JSON array written one element a line (dump(2), every pretty-printer): "--api-key", then its
// value on the next line. `secret_next` carries the first line's verdict to the second.
std::optional<std::string> JsonArrayValue(std::string_view line, bool* secret_next) {
  std::string_view t = Trim(line);
  bool lone_string = t.size() >= 2 && t.front() == '"' &&
                     (t.back() == '"' || (t.ends_with("\",") && t.size() >= 3));
  if (*secret_next && lone_string) {
    *secret_next = false;
    size_t lead = line.find('"');
    return std::string(line.substr(0, lead)) + "\"" + kRedacted + "\"" +
           (t.ends_with(',') ? "," : "");
  }
  *secret_next = false;
  if (lone_string) {
    std::string_view word = t.substr(1, t.size() - (t.ends_with(',') ? 3 : 2));
    *secret_next = word.find('=') == std::string_view::npos && IsSecretOption(word);
  }
  return std::nullopt;
}

}  // namespace

std::string RedactPaste(std::string_view text) {
  PasteRedactor r;
  bool secret_next = false;
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (true) {
    size_t nl = text.find('\n', i);
    std::string_view line = text.substr(i, nl == std::string_view::npos ? nl : nl - i);
    bool cr = line.ends_with('\r');
    if (cr) line.remove_suffix(1);
    auto value = JsonArrayValue(line, &secret_next);
    out += value ? *value : r.Line(line);
    if (cr) out += '\r';
    if (nl == std::string_view::npos) break;
    out += '\n';
    i = nl + 1;
  }
  return out;
}

std::string Base64(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    uint32_t v = (uint32_t(uint8_t(bytes[i])) << 16) | (uint32_t(uint8_t(bytes[i + 1])) << 8) |
                 uint8_t(bytes[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out += kAlphabet[(v >> s) & 63];
  }
  if (size_t left = bytes.size() - i; left > 0) {
    uint32_t v = uint32_t(uint8_t(bytes[i])) << 16;
    if (left == 2) v |= uint32_t(uint8_t(bytes[i + 1])) << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += left == 2 ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

namespace {

std::string PercentDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

}  // namespace

void EchoRedactor::AddSecret(std::string_view secret) {
  if (secret.size() < 4) return;
  for (std::string form : {std::string(secret), PercentDecode(secret), Base64(secret)}) {
    if (form.size() >= 4 && std::find(secrets_.begin(), secrets_.end(), form) == secrets_.end())
      secrets_.push_back(std::move(form));
  }
  // Longest first, so a secret that contains another is replaced whole.
  std::sort(secrets_.begin(), secrets_.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
}

void EchoRedactor::AddUrlCredentials(std::string_view user, std::string_view password) {
  if (password.empty()) {
    AddSecret(user);  // https://TOKEN@host: the user part is the credential
    AddSecret(Base64(PercentDecode(user) + ":"));
    return;
  }
  AddSecret(password);
  std::string pair = PercentDecode(user) + ":" + PercentDecode(password);
  AddSecret(pair);
  AddSecret(Base64(pair));
  AddSecret(std::string(user) + ":" + std::string(password));
}

std::string EchoRedactor::Redact(std::string_view text) const {
  std::string out(text);
  for (const auto& s : secrets_) {
    size_t at = 0;
    while ((at = out.find(s, at)) != std::string::npos) {
      out.replace(at, s.size(), kRedacted);
      at += std::string_view(kRedacted).size();
    }
  }
  // A text cut at a byte limit (an error body kept to its first bytes, Printable's "…") may end
  // inside a secret: its first bytes are a secret too.
  constexpr std::string_view kEllipsis = "…";
  size_t end = out.size();
  if (std::string_view(out).ends_with(kEllipsis)) end -= kEllipsis.size();
  for (const auto& s : secrets_) {
    for (size_t k = std::min(s.size() - 1, end); k >= 4; --k) {
      if (std::string_view(out).substr(end - k, k) == std::string_view(s).substr(0, k)) {
        out.replace(end - k, k, kRedacted);
        end = end - k + std::string_view(kRedacted).size();
        break;
      }
    }
  }
  return RedactText(out);
}

const std::vector<RedactionRule>& RedactionRules() {
  // Every row: a command line or environment value holding a secret in one form (the secret is
  // "S3CR3T" unless said), and a look-alike that must come out unchanged. redact_test.cc runs
  // each row both ways through RedactCommandLine.
  static const std::vector<RedactionRule> kRules = {
      {"long option, separate value", "--api-key S3CR3T", "S3CR3T", "--max-total-tokens 4096"},
      {"long option, = value", "--hf-token=S3CR3T", "S3CR3T", "--max-prefill-tokens=16384"},
      {"option named by its last word", "--secret-key S3CR3T", "S3CR3T", "--tokenizer-path /m/tok"},
      {"short option of the OpenAI CLI", "-k S3CR3T", "S3CR3T", "-t 8"},
      {"llama.cpp short option", "-hft S3CR3T", "S3CR3T", "-hf org/model"},
      {"header option, separate value", "-H 'Authorization: Bearer S3CR3T'", "S3CR3T",
       "-H 'Content-Type: application/json'"},
      {"header option, = value", "--header=X-Api-Key: S3CR3T", "S3CR3T",
       "--header=Accept: text/plain"},
      {"environment option", "--env=HF_TOKEN=S3CR3T", "S3CR3T",
       "--env=TOKENIZERS_PARALLELISM=false"},
      {"NAME=value word", "WANDB_API_KEY=S3CR3T python x.py", "S3CR3T",
       "HF_TOKEN_PATH=/h/t python x.py"},
      {"NAME=value holding a bearer token", "HF_HUB_AUTH='Bearer S3CR3T'", "S3CR3T",
       "HF_HUB_OFFLINE=1"},
      {"JSON argument", "--hf-overrides {\"api_key\":\"S3CR3T\"}", "S3CR3T",
       "--hf-overrides {\"max_tokens\":\"512\"}"},
      {"JSON argument with spaces", "--extra {\"token\": \"S3CR3T\", \"n\": 1}", "S3CR3T",
       "--extra {\"tokens\": \"all\", \"n\": 1}"},
      {"URL password", "--url https://u:S3CR3T@h:8000/v1", "S3CR3T",
       "--url https://h:8000/v1/@latest"},
      {"URL password holding '/' and '%'", "https://u:S3/CR%2F3T@h/x", "CR%2F3T",
       "https://h/a:b/c"},
      {"URL token as user", "https://S3CR3T@h/x", "S3CR3T", "mailto:a@h"},
      {"Azure SAS signature", "https://h/b?sv=1&sig=S3CR3T", "S3CR3T", "https://h/b?sv=1&size=4"},
      {"S3 presigned URL", "https://h/o?X-Amz-Signature=S3CR3T&X-Amz-Expires=60", "S3CR3T",
       "https://h/o?X-Amz-Expires=60"},
      {"GCS signed URL", "https://h/o?X-Goog-Signature=S3CR3T", "S3CR3T",
       "https://h/o?X-Goog-Date=1"},
      {"bearer token in free text", "Bearer S3CR3T", "S3CR3T", "Bearer of news"},
      {"basic credentials in free text", "Basic UzNDUjNUOng=", "UzNDUjNUOng=", "Basic setup"},
      {"key: value header line", "X-Api-Key: S3CR3T", "S3CR3T", "X-Request-Id: 42"},
      {"camelCase JSON key", "{\"apiKey\": \"S3CR3T\"}", "S3CR3T", "{\"apiVersion\": \"2\"}"},
      {"secret word anywhere in the name", "DB_PASSWORD_VALUE=S3CR3T", "S3CR3T",
       "DB_PASSWORDLESS=1"},
      {"compound word ending in a secret word", "ro rootpassword=S3CR3T quiet", "S3CR3T",
       "ro keyboard=us pci=noaer iommu=pt quiet"},
      {"compound word ending in pw", "rootpw=S3CR3T", "S3CR3T", "secretary=alice"},
      {"compound key line of a VM config", "cipassword: S3CR3T", "S3CR3T", "ciupgrade: 1"},
      {"compound key with a modifier", "--apikey S3CR3T", "S3CR3T", "--hotkey F1"},
      {"empty value before a secret option", "--hf-token= --api-key S3CR3T", "S3CR3T",
       "--hf-token= --port 8000"},
      {"NAME=value holding ',' and ';'", "password=a,S3CR3T;x", "S3CR3T", "pci=noaer,nomsi"},
  };
  return kRules;
}

}  // namespace dossier
