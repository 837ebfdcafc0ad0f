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

Result<Endpoint> ParseEndpoint(std::string_view url) {
  std::string text(Trim(url));
  if (text.find("://") == std::string::npos) text = "http://" + text;
  CURLU* u = curl_url();
  if (!u) return Error::Io("curl_url failed");
  CURLUcode rc = curl_url_set(u, CURLUPART_URL, text.c_str(), 0);
  if (rc != CURLUE_OK) {
    curl_url_cleanup(u);
    return Error::Invalid("not a URL: '" + Printable(RedactUrl(url)) + "' (" +
                          curl_url_strerror(rc) + "); pass e.g. http://127.0.0.1:30000");
  }
  Endpoint e;
  std::string scheme = Part(u, CURLUPART_SCHEME);
  e.host = Part(u, CURLUPART_HOST);
  std::string port = Part(u, CURLUPART_PORT, CURLU_DEFAULT_PORT);
  std::string path = Part(u, CURLUPART_PATH);
  std::string query = Part(u, CURLUPART_QUERY) + Part(u, CURLUPART_FRAGMENT);
  curl_url_cleanup(u);
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
  return e;
}

}  // namespace dossier::serve
