// Redaction of secrets before anything is stored or printed: tokens, keys and passwords in
// environment variables, command-line options and URLs become "<redacted>". Applied by the probes
// at collection time, so no record on disk ever holds a secret.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dossier {

inline constexpr const char* kRedacted = "<redacted>";

// HF_TOKEN, OPENAI_API_KEY, AWS_SECRET_ACCESS_KEY, DB_PASSWORD, *_CREDENTIALS…
bool IsSecretName(std::string_view name);
// --api-key, --token, --hf-token, --password, --secret-key… (the option name, dashes included).
bool IsSecretOption(std::string_view option);
// scheme://user:pass@host -> scheme://<redacted>@host; ?token=…&key=… values redacted.
std::string RedactUrl(std::string_view text);
// An environment value: wholly redacted when the name is secret, else URL credentials only.
std::string RedactEnvValue(std::string_view name, std::string_view value);
// An argv: values of secret options (both "--opt value" and "--opt=value"), NAME=value words with
// secret names, and credentials in URLs.
std::vector<std::string> RedactArgv(const std::vector<std::string>& argv);
// The same for a command line held as one string (split on white space).
std::string RedactCommandLine(std::string_view line);

}  // namespace dossier
