// libcurl, opened at run time (dlopen) instead of linked. Linking it made every dossier process
// load libcurl and its ~25 dependencies (TLS, Kerberos, LDAP, IDN, HTTP/2…) at start-up, though
// only serve-bench over https, credentials in the URL or a proxy use it; and a portable binary
// that links it must ship all of them. Now a host without libcurl still collects, and serve-bench
// says what it needs when an endpoint wants libcurl and it is absent.
//
// The functions keep libcurl's names: inside dossier::serve these pointers hide <curl/curl.h>'s
// declarations (which are not linked), so the calling code reads as libcurl's documentation does.
// They are null until CurlMissing() has loaded the library and returned "".
#pragma once

#include <curl/curl.h>

#include <string>

namespace dossier::serve {

// "" once libcurl is loaded with every function below; else why not (the loader's message, or
// the missing symbol). Loads on the first call; thread-safe. $DOSSIER_CURL_LIB names another
// library file (tests use it to stand for a host without libcurl).
const std::string& CurlMissing();

// What to tell the person when libcurl is needed and missing.
std::string CurlNeeded(const std::string& for_what);

extern decltype(&::curl_global_init) curl_global_init;
extern decltype(&::curl_easy_init) curl_easy_init;
extern decltype(&::curl_easy_setopt) curl_easy_setopt;
extern decltype(&::curl_easy_getinfo) curl_easy_getinfo;
extern decltype(&::curl_easy_perform) curl_easy_perform;
extern decltype(&::curl_easy_cleanup) curl_easy_cleanup;
extern decltype(&::curl_easy_strerror) curl_easy_strerror;
extern decltype(&::curl_slist_append) curl_slist_append;
extern decltype(&::curl_slist_free_all) curl_slist_free_all;
extern decltype(&::curl_multi_init) curl_multi_init;
extern decltype(&::curl_multi_setopt) curl_multi_setopt;
extern decltype(&::curl_multi_add_handle) curl_multi_add_handle;
extern decltype(&::curl_multi_remove_handle) curl_multi_remove_handle;
extern decltype(&::curl_multi_socket_action) curl_multi_socket_action;
extern decltype(&::curl_multi_info_read) curl_multi_info_read;
extern decltype(&::curl_multi_cleanup) curl_multi_cleanup;
extern decltype(&::curl_url) curl_url;
extern decltype(&::curl_url_set) curl_url_set;
extern decltype(&::curl_url_get) curl_url_get;
extern decltype(&::curl_url_cleanup) curl_url_cleanup;
extern decltype(&::curl_url_strerror) curl_url_strerror;
extern decltype(&::curl_free) curl_free;

}  // namespace dossier::serve
