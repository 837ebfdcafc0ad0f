// CurlStreamClient: the StreamClient on libcurl's multi interface, driven by its socket API over
// epoll. It serves what the native transport does not: https, credentials in the URL, proxies.
#pragma once

#include <vector>

#include "measure/serve/curl_api.h"

#include "measure/serve/stream_client.h"

namespace dossier::serve {

class CurlStreamClient final : public StreamClient {
 public:
  CurlStreamClient(ClientOptions options, Sink* sink);
  ~CurlStreamClient() override;
  CurlStreamClient(const CurlStreamClient&) = delete;
  CurlStreamClient& operator=(const CurlStreamClient&) = delete;

  Status Init() override;
  void Start(int64_t id, void* user, const std::string& url, std::string_view body) override;
  void Poll(int64_t deadline_ns) override;
  void CancelAll() override;
  size_t active() const override { return active_; }

 private:
  struct Transfer;
  static int OnSocket(CURL* easy, curl_socket_t s, int what, void* userp, void* socketp);
  static int OnTimer(CURLM* multi, long timeout_ms, void* userp);
  static size_t OnWrite(char* data, size_t size, size_t n, void* userp);
  void Drive(curl_socket_t s, int events);
  void ReapFinished();
  void Release(Transfer* t);

  ClientOptions options_;
  Sink* sink_;
  CURLM* multi_ = nullptr;
  int epoll_fd_ = -1;
  int64_t timer_deadline_ns_ = -1;  // curl's next timeout; -1: none
  curl_slist* headers_ = nullptr;   // shared by every request
  std::string auth_header_;
  std::vector<Transfer*> free_;  // finished transfers kept for reuse (easy handles keep caches)
  std::vector<Transfer*> all_;
  size_t active_ = 0;
};

}  // namespace dossier::serve
