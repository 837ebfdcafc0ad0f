#include "measure/serve/endpoint.h"

#include <curl/curl.h>

#include "util/redact.h"
#include "util/text.h"

namespace dossier::serve {
namespace {

// curl's URL parser, the one the requests will go through, so both agree on host and port.
std::string Part(CURLU* u, CURLUPart part, unsigned flags = 0) {
  char* s = nullptr;
  if (curl_url_get(u, part, &s, flags) != CURLUE_OK || !s) return "";
  std::string out(s);
  curl_free(s);
  return out;
}

}  // namespace

Result<UrlParts> SplitUrl(std::string_view url) {
  CURLU* u = curl_url();
  if (!u) return Error::Io("curl_url failed");
  std::string text(url);
  CURLUcode rc = curl_url_set(u, CURLUPART_URL, text.c_str(), 0);
  if (rc != CURLUE_OK) {
    curl_url_cleanup(u);
    return Error::Invalid(curl_url_strerror(rc));  // the caller says which URL
  }
  UrlParts p;
  p.scheme = Part(u, CURLUPART_SCHEME);
  p.host = Part(u, CURLUPART_HOST);
  p.port = Part(u, CURLUPART_PORT, CURLU_DEFAULT_PORT);
  p.explicit_port = !Part(u, CURLUPART_PORT).empty();
  p.path = Part(u, CURLUPART_PATH);
  p.query = Part(u, CURLUPART_QUERY) + Part(u, CURLUPART_FRAGMENT);
  p.user = Part(u, CURLUPART_USER);
  p.password = Part(u, CURLUPART_PASSWORD);
  p.has_credentials = !p.user.empty() || !p.password.empty();
  curl_url_cleanup(u);
  return p;
}

Result<Endpoint> ParseEndpoint(std::string_view url) {
  std::string text(Trim(url));
  if (text.find("://") == std::string::npos) text = "http://" + text;
  auto parts = SplitUrl(text);
  if (!parts) {
    return Error::Invalid("not a URL: '" + Printable(RedactUrl(url)) + "' (" +
                          parts.error().message + "); pass e.g. http://127.0.0.1:30000");
  }
  Endpoint e;
  const std::string& scheme = parts->scheme;
  e.host = parts->host;
  const std::string& port = parts->port;
  std::string path = parts->path;
  const std::string& query = parts->query;
  if (scheme != "http" && scheme != "https") {
    return Error::Invalid("only http:// and https:// endpoints are supported, not " + scheme);
  }
  if (!query.empty())
    return Error::Invalid("the endpoint URL must not carry a query string or a fragment");
  e.port = static_cast<int>(ParseInt(port).value_or(0));
  // The base is everything before the path; the OpenAI paths are appended to it.
  while (!path.empty() && path.back() == '/') path.pop_back();
  if (path.ends_with("/v1")) path.resize(path.size() - 3);
  size_t authority_end = text.find('/', text.find("://") + 3);
  std::string prefix = authority_end == std::string::npos ? text : text.substr(0, authority_end);
  e.base = prefix + path;
  e.redacted = RedactUrl(e.base);
  e.user = parts->user;
  e.password = parts->password;
  return e;
}

}  // namespace dossier::serve
