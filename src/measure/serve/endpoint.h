// The server address a benchmark is pointed at: "http://host:port", with or without a trailing
// "/v1" or "/", turned into the URLs of its endpoints, plus its host and port (to find the server
// process when it runs on this machine) and a form safe to print and store (credentials in the
// URL redacted).
#pragma once

#include <string>
#include <string_view>

#include "util/result.h"

namespace dossier::serve {

struct Endpoint {
  std::string base;            // "http://127.0.0.1:30000" (credentials kept: curl needs them)
  std::string redacted;        // the same for printing and storing
  std::string user, password;  // credentials in the URL, to redact from what the server echoes
  std::string host;            // "127.0.0.1"
  int port = 0;                // explicit or the scheme's default
  std::string Url(std::string_view path) const { return base + std::string(path); }
  std::string RedactedUrl(std::string_view path) const { return redacted + std::string(path); }
};

// A URL in its parts, as libcurl's URL parser reads it (the requests' parser: both agree).
struct UrlParts {
  std::string scheme, host;  // host as written: "[::1]" keeps its brackets
  std::string port;          // explicit, or the scheme's default
  bool explicit_port = false;
  std::string path, query;  // path without the query; query without "?"
  bool has_credentials = false;
  std::string user, password;  // as written (percent-encoded); for EchoRedactor, never printed
};
Result<UrlParts> SplitUrl(std::string_view url);  // error: libcurl's reason

// http and https only; a URL that does not parse is an error saying what to pass.
Result<Endpoint> ParseEndpoint(std::string_view url);

}  // namespace dossier::serve
