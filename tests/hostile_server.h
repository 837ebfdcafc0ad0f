// A hostile HTTP server for the adversarial tests: it listens on 127.0.0.1 on a port the kernel
// picks (port 0, so parallel test runs never collide), answers every request with what its
// behaviour says (an echo of the request in an error body or an error event, an endless body,
// silence), and stops by itself: at destruction, or after `lifetime_s` whatever the test does.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace dossier::testing {

class HostileServer {
 public:
  enum Behaviour {
    kEcho401,         // 401 whose body quotes the request's head (headers included)
    kEchoErrorEvent,  // 200 event stream whose one event is an error quoting the request
    kEchoModels,      // /v1/models answers a model id made of the request's Authorization
    kEndlessBody,     // 200 event stream of comment lines that never ends
    kSilent,          // reads the request, never answers
  };

  explicit HostileServer(Behaviour b, double lifetime_s = 30) : behaviour_(b) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::listen(fd_, 64);
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    deadline_ = std::chrono::steady_clock::now() +
                std::chrono::milliseconds(static_cast<int64_t>(lifetime_s * 1000));
    accept_ = std::thread([this] { AcceptLoop(); });
  }
  ~HostileServer() {
    stop_ = true;
    accept_.join();
    std::vector<std::thread> conns;
    {
      std::lock_guard<std::mutex> l(mu_);
      conns.swap(conns_);
    }
    for (auto& t : conns) t.join();
    ::close(fd_);
  }
  int port() const { return port_; }
  std::string base_url(const std::string& userinfo = "") const {
    return "http://" + (userinfo.empty() ? "" : userinfo + "@") +
           "127.0.0.1:" + std::to_string(port_);
  }
  // Every request head the server read (for checking what was sent).
  std::vector<std::string> heads() const {
    std::lock_guard<std::mutex> l(mu_);
    return heads_;
  }
  int64_t bytes_sent() const { return sent_; }

 private:
  bool Over() const { return stop_ || std::chrono::steady_clock::now() > deadline_; }

  void AcceptLoop() {
    while (!Over()) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) continue;
      std::lock_guard<std::mutex> l(mu_);
      conns_.emplace_back([this, c] { Serve(c); });
    }
  }

  // Reads one request (head and a Content-Length body); false when the peer closed or we stop.
  bool ReadRequest(int c, std::string* head) {
    std::string buf;
    char tmp[4096];
    while (!Over()) {
      size_t end = buf.find("\r\n\r\n");
      if (end != std::string::npos) {
        *head = buf.substr(0, end);
        size_t cl = 0;
        size_t k = buf.find("Content-Length:");
        if (k == std::string::npos) k = buf.find("content-length:");
        if (k != std::string::npos) cl = std::stoul(buf.substr(k + 15));
        while (buf.size() < end + 4 + cl && !Over()) {
          pollfd p{c, POLLIN, 0};
          if (::poll(&p, 1, 50) <= 0) continue;
          ssize_t n = ::recv(c, tmp, sizeof tmp, 0);
          if (n <= 0) return false;
          buf.append(tmp, static_cast<size_t>(n));
        }
        return true;
      }
      pollfd p{c, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      ssize_t n = ::recv(c, tmp, sizeof tmp, 0);
      if (n <= 0) return false;
      buf.append(tmp, static_cast<size_t>(n));
    }
    return false;
  }

  bool Send(int c, const std::string& s) {
    size_t off = 0;
    while (off < s.size() && !Over()) {
      ssize_t n = ::send(c, s.data() + off, s.size() - off, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0) {
        if (errno != EAGAIN) return false;
        pollfd p{c, POLLOUT, 0};
        ::poll(&p, 1, 50);
        continue;
      }
      off += static_cast<size_t>(n);
      sent_ += n;
    }
    return off == s.size();
  }

  static std::string JsonEscaped(const std::string& s) {
    std::string out;
    for (char ch : s) {
      if (ch == '"' || ch == '\\') out += '\\';
      if (ch == '\r') continue;
      if (ch == '\n') {
        out += "\\n";
        continue;
      }
      out += ch;
    }
    return out;
  }

  static std::string Header(const std::string& head, const std::string& name) {
    size_t k = head.find(name + ": ");
    if (k == std::string::npos) return "";
    size_t e = head.find("\r\n", k);
    return head.substr(k + name.size() + 2,
                       e == std::string::npos ? std::string::npos : e - k - name.size() - 2);
  }

  void Serve(int c) {
    std::string head;
    while (ReadRequest(c, &head)) {
      {
        std::lock_guard<std::mutex> l(mu_);
        heads_.push_back(head);
      }
      std::string body, type = "application/json", status = "200 OK";
      switch (behaviour_) {
        case kEcho401:
          status = "401 Unauthorized";
          body = "{\"error\": \"unauthorized\", \"you sent\": \"" + JsonEscaped(head) + "\"}";
          break;
        case kEchoErrorEvent:
          if (head.find("/v1/models") != std::string::npos) {
            body = "{\"data\": [{\"id\": \"m\"}]}";
            break;
          }
          type = "text/event-stream";
          body = "data: {\"error\": {\"message\": \"rejected " + JsonEscaped(head) +
                 "\"}}\n\ndata: [DONE]\n\n";
          break;
        case kEchoModels:
          body = "{\"data\": [{\"id\": \"" + JsonEscaped(Header(head, "Authorization")) + "\"}]}";
          break;
        case kEndlessBody: {
          Send(c,
               "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n");
          std::string chunk(64 << 10, 'x');
          chunk[0] = ':';
          chunk.back() = '\n';
          while (!Over() && Send(c, chunk)) {
          }
          ::close(c);
          return;
        }
        case kSilent:
          while (!Over()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
          ::close(c);
          return;
      }
      std::string resp = "HTTP/1.1 " + status + "\r\nContent-Type: " + type +
                         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
      if (!Send(c, resp)) break;
    }
    ::close(c);
  }

  Behaviour behaviour_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> sent_{0};
  std::chrono::steady_clock::time_point deadline_;
  std::thread accept_;
  mutable std::mutex mu_;
  std::vector<std::thread> conns_;
  std::vector<std::string> heads_;
};

}  // namespace dossier::testing
