#include "measure/serve/endpoint.h"

#include <cctype>

#include "measure/serve/curl_api.h"
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

// Without libcurl (a host that lacks it, the portable binary): the parts of an ordinary
// scheme://[user[:password]@]host[:port][/path][?query][#fragment] URL, which is all the native
// client serves. libcurl, when present, stays the reference, so both transports agree.
Result<UrlParts> SplitUrlPlain(std::string_view url) {
  UrlParts p;
  size_t sep = url.find("://");
  if (sep == std::string_view::npos || sep == 0) return Error::Invalid("no scheme");
  p.scheme = std::string(url.substr(0, sep));
  for (char& c : p.scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string_view rest = url.substr(sep + 3);
  size_t end = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, end);
  std::string_view tail = end == std::string_view::npos ? "" : rest.substr(end);
  if (size_t at = authority.rfind('@'); at != std::string_view::npos) {
    std::string_view userinfo = authority.substr(0, at);
    size_t colon = userinfo.find(':');
    p.user = std::string(userinfo.substr(0, colon));
    if (colon != std::string_view::npos) p.password = std::string(userinfo.substr(colon + 1));
    p.has_credentials = !p.user.empty() || !p.password.empty();
    authority = authority.substr(at + 1);
  }
  std::string_view port;
  if (!authority.empty() && authority[0] == '[') {
    size_t close = authority.find(']');
    if (close == std::string_view::npos) return Error::Invalid("unmatched [ in the host");
    p.host = std::string(authority.substr(0, close + 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty() && after[0] != ':') return Error::Invalid("junk after the IPv6 address");
    if (!after.empty()) port = after.substr(1);
  } else {
    size_t colon = authority.rfind(':');
    p.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
  }
  if (p.host.empty()) return Error::Invalid("no host");
  for (char c : p.host)
    if (static_cast<unsigned char>(c) <= ' ') return Error::Invalid("bad character in the host");
  if (!port.empty()) {
    auto n = ParseInt(port);
    if (!n || *n < 1 || *n > 65535) return Error::Invalid("port number out of range");
    p.port = std::to_string(*n);
    p.explicit_port = true;
  } else {
    p.port = p.scheme == "https" ? "443" : p.scheme == "http" ? "80" : "";
  }
  size_t q = tail.find_first_of("?#");
  p.path = std::string(tail.substr(0, q));
  if (p.path.empty()) p.path = "/";
  if (q != std::string_view::npos) {
    std::string_view qf = tail.substr(q + 1);
    for (char c : qf)
      if (c != '#') p.query += c;
  }
  return p;
}

Result<UrlParts> SplitUrl(std::string_view url) {
  if (!CurlMissing().empty()) return SplitUrlPlain(url);
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
