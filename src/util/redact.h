// Redaction of secrets before anything is stored or printed: tokens, keys and passwords in
// environment variables, command-line options, headers, JSON arguments, URLs and server
// responses become "<redacted>". Applied by the probes at collection time and by serve-bench to
// what a server sends back, so no record on disk and no line on a terminal holds a secret.
//
// The rules are one table (redact.cc, kRules), each row a form a secret takes, with an example
// that is redacted and a look-alike that is kept; redact_test.cc checks both for every row, so a
// rule cannot be added without its test. Names are judged by their words: "--max-total-tokens"
// and "TOKENIZERS_PARALLELISM" hold the letters of "token" but not the word, and are kept.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dossier {

inline constexpr const char* kRedacted = "<redacted>";

// HF_TOKEN, OPENAI_API_KEY, AWS_SECRET_ACCESS_KEY, DB_PASSWORD, *_CREDENTIALS, HF_HUB_AUTH,
// X-Amz-Signature, apiKey… (also header names and JSON or query keys).
bool IsSecretName(std::string_view name);
// --api-key, --token, --hf-token, --password, -k, -hft… (the option name, dashes included).
bool IsSecretOption(std::string_view option);
// scheme://user:pass@host -> scheme://<redacted>@host (passwords holding '/', '%', '@' too);
// ?token=…&sig=…&X-Amz-Signature=… values redacted.
std::string RedactUrl(std::string_view text);
// Free text (an argument, an environment value, a server's error body): URLs, JSON or dict pairs
// with secret keys, "Authorization: …" header lines, "Bearer X"/"Basic X", NAME=value words.
std::string RedactText(std::string_view text);
// An environment value: wholly redacted when the name is secret, else read as a command line
// (VLLM_EXTRA_ARGS="--api-key X") and as free text (HF_HUB_AUTH="Bearer X").
std::string RedactEnvValue(std::string_view name, std::string_view value);
// An argv: values of secret options ("--opt value", "--opt=value", "-k value"), header options
// (-H "X-Api-Key: X"), --env=NAME=value, and every word as free text.
std::vector<std::string> RedactArgv(const std::vector<std::string>& argv);
// The same for a command line held as one string; white space between words is kept.
std::string RedactCommandLine(std::string_view line);

// A pasted text (what `dossier import` keeps as the original): every line as a command line
// (RedactCommandLine: `export HF_TOKEN=…`, `cipassword: …`, `password=` in a description, env
// dumps), and PEM private key blocks ("-----BEGIN … PRIVATE KEY-----" to "-----END …-----",
// OpenSSH, RSA, EC, PKCS#8, PGP) removed whole: their first line becomes kRedactedKey and the
// others empty, so line numbers still point where they pointed. A block that never ends (a cut
// paste) runs to the end of the text.
inline constexpr const char* kRedactedKey = "<redacted: private key>";
std::string RedactPaste(std::string_view text);
// The same, one line at a time in order (the lines of one text), for texts already cut in lines.
class PasteRedactor {
 public:
  std::string Line(std::string_view line);

 private:
  bool in_key_ = false;
};

// Text a remote party sends back (serve-bench's server answers): every occurrence of a secret
// this process sent (the API key, URL credentials, their "Basic" base64 and percent forms) is
// redacted, then the text rules apply. A server or proxy that echoes the request thus cannot
// make dossier print or store the key.
class EchoRedactor {
 public:
  EchoRedactor() = default;
  // The secret as sent; its base64 and percent-decoded forms are added too. Values shorter than
  // 4 bytes are not searched for literally (they would cut ordinary words to pieces); the text
  // rules still apply to them.
  void AddSecret(std::string_view secret);
  // URL credentials: user, password, "user:password" and the base64 of the latter.
  void AddUrlCredentials(std::string_view user, std::string_view password);
  std::string Redact(std::string_view text) const;

 private:
  std::vector<std::string> secrets_;
};

// The forms redaction knows, each with an example that holds a secret and a look-alike that is kept
// as it is (read by redact_test.cc, both ways, through RedactCommandLine).
struct RedactionRule {
  const char* form;
  const char* redacted;  // holds `secret`; must come out without it
  const char* secret;
  const char* kept;  // must come out unchanged
};
const std::vector<RedactionRule>& RedactionRules();

// RFC 4648 base64 (with padding), as HTTP Basic authentication encodes "user:password".
std::string Base64(std::string_view bytes);

}  // namespace dossier
