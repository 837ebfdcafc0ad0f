// Redaction as a property: generated secrets holding every URL-reserved and shell-special
// character, in every position the rule table covers (environment, argv "--opt=v" and "--opt v",
// a command line, URL user information, query parameters, header lines, "key: value" lines,
// JSON strings, kernel-style NAME=value), each written as its syntax writes it (percent-encoded in
// a URL, escaped in a JSON or double-quoted string). None of the secret's bytes may come out:
// neither the secret whole nor any of the tags it is built from. The seed is fixed, so a failure
// is the same on every run; the failing case is printed whole.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "util/redact.h"

namespace dossier {
namespace {

// RFC 3986 gen-delims and sub-delims, and what a POSIX shell treats specially.
constexpr std::string_view kReserved = ":/?#[]@!$&'()*+,;=";
constexpr std::string_view kShell = "|<>`\"\\~{}^%*?$;&'()";

// A secret: tags of four characters from [0-9QXZ] (at least one digit: no template, no
// "<redacted>" holds one) between runs of special characters. A tag found in the output is a
// piece of the secret that leaked.
struct Secret {
  std::string text;
  std::vector<std::string> tags;
};

class SecretGen {
 public:
  explicit SecretGen(uint64_t seed) : rng_(seed) {}
  // `exclude`: characters the position's syntax cannot hold unescaped and has no escape for.
  Secret Make(std::string_view exclude = "") {
    std::string specials;
    for (char c : std::string(kReserved) + std::string(kShell))
      if (exclude.find(c) == std::string_view::npos) specials += c;
    Secret s;
    int parts = 2 + Below(4);
    for (int p = 0; p < parts; ++p) {
      std::string tag;
      static constexpr std::string_view kTagChars = "0123456789QXZ";
      for (int k = 0; k < 4; ++k) tag += kTagChars[Below(kTagChars.size())];
      tag[Below(4)] = static_cast<char>('0' + Below(10));
      // Specials before the tag (first part: possibly none, so a secret may start with a tag).
      int n = Below(4) + (p == 0 ? 0 : 1);
      for (int k = 0; k < n && !specials.empty(); ++k) s.text += specials[Below(specials.size())];
      s.text += tag;
      s.tags.push_back(tag);
    }
    if (Below(2) && !specials.empty()) s.text += specials[Below(specials.size())];
    return s;
  }
  int Below(size_t n) { return static_cast<int>(rng_() % n); }

 private:
  std::mt19937_64 rng_;
};

std::string PercentEncode(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

// Inside "…" in JSON, and in a double-quoted shell word: '"' and '\' escaped with '\'.
std::string BackslashEscape(std::string_view s, std::string_view also = "") {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\' || also.find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

void ExpectNoLeak(const Secret& s, const std::string& input, const std::string& out) {
  EXPECT_EQ(out.find(s.text), std::string::npos) << "in:  " << input << "\nout: " << out;
  for (const auto& t : s.tags)
    EXPECT_EQ(out.find(t), std::string::npos)
        << "tag " << t << " of the secret leaked\nin:  " << input << "\nout: " << out;
}

std::string Joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& a : v) out += (out.empty() ? "" : " ") + a;
  return out;
}

TEST(RedactProperty, GeneratedSecretsLeakFromNoPosition) {
  SecretGen gen(20261204);
  for (int round = 0; round < 300; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    // argv words: a secret may hold anything, blanks included.
    {
      Secret s = gen.Make();
      std::string with_blank = s.text + " " + s.tags[0];
      for (const auto& argv : std::vector<std::vector<std::string>>{
               {"vllm", "serve", "m", "--api-key", s.text, "--port", "8000"},
               {"vllm", "serve", "m", "--api-key=" + s.text},
               {"llama-server", "-hft", s.text},
               {"serve", "--hf-token=", "--api-key", s.text},
               {"serve", "--api-key", with_blank},
               {"curl", "-H", "Authorization: Bearer " + s.text},
               {"curl", "-H", "X-Api-Key: " + s.text},
               {"docker", "--env=HF_TOKEN=" + s.text}}) {
        ExpectNoLeak(s, Joined(argv), Joined(RedactArgv(argv)));
      }
    }
    // Environment: the value whole, whatever it holds.
    {
      Secret s = gen.Make();
      ExpectNoLeak(s, s.text, RedactEnvValue("HF_TOKEN", s.text));
      ExpectNoLeak(s, s.text, RedactEnvValue("ROOTPASSWORD", s.text));
    }
    // A command line as one string: blanks split it, so the secret has none.
    {
      Secret s = gen.Make();
      for (const std::string& line :
           {"vllm serve m --api-key " + s.text + " --port 8000",
            "vllm serve m --api-key=" + s.text + " --port 8000",
            "vllm serve m --hf-token= --api-key " + s.text, "TOKEN= Bearer " + s.text,
            "BOOT_IMAGE=/vmlinuz rootpassword=" + s.text + " quiet",
            "ro rootpw=" + s.text + " keyboard=us", "export HF_TOKEN=" + s.text,
            "HF_TOKEN=" + s.text + " python3 serve.py",
            "WANDB_API_KEY=\"" + BackslashEscape(s.text, "$`") + "\" python x.py",
            "curl -H \"X-Api-Key: " + BackslashEscape(s.text, "$`") + "\" http://h/v1",
            "curl -H \"Authorization: Bearer " + BackslashEscape(s.text, "$`") + "\" http://h"}) {
        ExpectNoLeak(s, line, RedactCommandLine(line));
      }
    }
    // Header and "key: value" lines (an echoed request, a qm config): the value runs to the end
    // of the line.
    {
      Secret s = gen.Make();
      for (const std::string& line : {"Authorization: Bearer " + s.text, "X-Api-Key: " + s.text,
                                      "cipassword: " + s.text, "Proxy-Authorization: " + s.text}) {
        ExpectNoLeak(s, line, RedactText(line + "\n"));
        ExpectNoLeak(s, line, RedactCommandLine(line));
      }
    }
    // URLs: the secret percent-encoded as RFC 3986 asks.
    {
      Secret s = gen.Make();
      std::string enc = PercentEncode(s.text);
      Secret es{enc, s.tags};
      for (const std::string& line :
           {"--url https://user:" + enc + "@h:8000/v1", "--url https://" + enc + "@h/v1",
            "https://h/v1?api_key=" + enc + "&model=m", "https://h/b?sv=1&sig=" + enc,
            "https://h/o?X-Amz-Signature=" + enc + "&X-Amz-Expires=60",
            "--base-url http://u:" + enc + "@10.0.0.1:8000/v1"}) {
        ExpectNoLeak(es, line, RedactCommandLine(line));
        ExpectNoLeak(es, line, RedactText(line));
      }
    }
    // JSON strings: '"' and '\' escaped.
    {
      Secret s = gen.Make();
      std::string j = BackslashEscape(s.text);
      for (const std::string& line :
           {"{\"api_key\": \"" + j + "\", \"n\": 1}", "{\"apiKey\":\"" + j + "\"}",
            "--hf-overrides {\"token\": \"" + j + "\"}"}) {
        ExpectNoLeak(s, line, RedactCommandLine(line));
        ExpectNoLeak(s, line, RedactText(line));
      }
    }
  }
}

}  // namespace
}  // namespace dossier
