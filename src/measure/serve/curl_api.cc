#include "measure/serve/curl_api.h"

#include <cstdlib>
#include <type_traits>

#include "gpu/dynamic_library.h"

namespace dossier::serve {

decltype(&::curl_global_init) curl_global_init = nullptr;
decltype(&::curl_easy_init) curl_easy_init = nullptr;
decltype(&::curl_easy_setopt) curl_easy_setopt = nullptr;
decltype(&::curl_easy_getinfo) curl_easy_getinfo = nullptr;
decltype(&::curl_easy_perform) curl_easy_perform = nullptr;
decltype(&::curl_easy_cleanup) curl_easy_cleanup = nullptr;
decltype(&::curl_easy_strerror) curl_easy_strerror = nullptr;
decltype(&::curl_slist_append) curl_slist_append = nullptr;
decltype(&::curl_slist_free_all) curl_slist_free_all = nullptr;
decltype(&::curl_multi_init) curl_multi_init = nullptr;
decltype(&::curl_multi_setopt) curl_multi_setopt = nullptr;
decltype(&::curl_multi_add_handle) curl_multi_add_handle = nullptr;
decltype(&::curl_multi_remove_handle) curl_multi_remove_handle = nullptr;
decltype(&::curl_multi_socket_action) curl_multi_socket_action = nullptr;
decltype(&::curl_multi_info_read) curl_multi_info_read = nullptr;
decltype(&::curl_multi_cleanup) curl_multi_cleanup = nullptr;
decltype(&::curl_url) curl_url = nullptr;
decltype(&::curl_url_set) curl_url_set = nullptr;
decltype(&::curl_url_get) curl_url_get = nullptr;
decltype(&::curl_url_cleanup) curl_url_cleanup = nullptr;
decltype(&::curl_url_strerror) curl_url_strerror = nullptr;
decltype(&::curl_free) curl_free = nullptr;

namespace {

std::string LoadCurl() {
  std::vector<std::string> candidates = {"libcurl.so.4", "libcurl-gnutls.so.4"};
  if (const char* env = std::getenv("DOSSIER_CURL_LIB"); env && *env) candidates = {env};
  auto lib = gpu::DynamicLibrary::Open(candidates);
  if (!lib) return lib.error().message;
  std::string missing;
  auto get = [&](auto& fn, const char* name) {
    auto f = lib->Find<std::remove_reference_t<decltype(fn)>>({name});
    if (!f) missing += (missing.empty() ? "" : "; ") + f.missing;
    fn = f.fn;
  };
  get(curl_global_init, "curl_global_init");
  get(curl_easy_init, "curl_easy_init");
  get(curl_easy_setopt, "curl_easy_setopt");
  get(curl_easy_getinfo, "curl_easy_getinfo");
  get(curl_easy_perform, "curl_easy_perform");
  get(curl_easy_cleanup, "curl_easy_cleanup");
  get(curl_easy_strerror, "curl_easy_strerror");
  get(curl_slist_append, "curl_slist_append");
  get(curl_slist_free_all, "curl_slist_free_all");
  get(curl_multi_init, "curl_multi_init");
  get(curl_multi_setopt, "curl_multi_setopt");
  get(curl_multi_add_handle, "curl_multi_add_handle");
  get(curl_multi_remove_handle, "curl_multi_remove_handle");
  get(curl_multi_socket_action, "curl_multi_socket_action");
  get(curl_multi_info_read, "curl_multi_info_read");
  get(curl_multi_cleanup, "curl_multi_cleanup");
  get(curl_url, "curl_url");  // libcurl 7.62 and later (RHEL 8 has 7.61: too old)
  get(curl_url_set, "curl_url_set");
  get(curl_url_get, "curl_url_get");
  get(curl_url_cleanup, "curl_url_cleanup");
  get(curl_url_strerror, "curl_url_strerror");  // 7.80
  get(curl_free, "curl_free");
  if (!missing.empty()) return lib->path() + " is too old: " + missing;
  return "";
}

}  // namespace

const std::string& CurlMissing() {
  static const std::string why = LoadCurl();  // C++ magic statics: loaded once, thread-safe
  return why;
}

std::string CurlNeeded(const std::string& for_what) {
  return for_what + " needs libcurl (7.80 or later), which could not be loaded: " + CurlMissing() +
         ". Install it (Debian/Ubuntu: apt-get install libcurl4; RHEL/Fedora: dnf install "
         "libcurl), or measure over plain http:// with the native client";
}

}  // namespace dossier::serve
