#include "store/record_header.h"

#include "store/regular_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <streambuf>

namespace dossier {
namespace {

using nlohmann::json;

// A read-only stream buffer over a file descriptor (64 KiB at a time) that refuses to pass more
// than `max` bytes: a record that grows while it is read is cut, and the cut fails the parse.
class FdReadBuf : public std::streambuf {
 public:
  FdReadBuf(int fd, size_t max) : fd_(fd), left_(max) {}
  bool failed() const { return failed_; }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    size_t want = std::min(sizeof buf_, left_);
    if (want == 0) return traits_type::eof();
    ssize_t n;
    do {
      n = ::read(fd_, buf_, want);
    } while (n < 0 && errno == EINTR);
    if (n <= 0) {
      failed_ = n < 0;
      return traits_type::eof();
    }
    left_ -= static_cast<size_t>(n);
    setg(buf_, buf_, buf_ + n);
    return traits_type::to_int_type(*gptr());
  }

 private:
  int fd_;
  size_t left_;
  bool failed_ = false;
  char buf_[65536];
};

// Keeps the strings of the top level (and machine.name) and nothing else. The last of a
// duplicated key wins, as in a full parse; a value of another type reads as "" (as Str() does).
class HeaderSax : public json::json_sax_t {
 public:
  explicit HeaderSax(RecordHeader* h) : h_(h) {}
  size_t error_byte = 0;

  bool null() override { return Value(nullptr); }
  bool boolean(bool) override { return Value(nullptr); }
  bool number_integer(number_integer_t) override { return Value(nullptr); }
  bool number_unsigned(number_unsigned_t) override { return Value(nullptr); }
  bool number_float(number_float_t, const string_t&) override { return Value(nullptr); }
  bool string(string_t& s) override { return Value(&s); }
  bool binary(binary_t&) override { return Value(nullptr); }
  bool start_object(std::size_t) override {
    if (depth_ == 0) h_->object = true;
    if (depth_ == 1 && key_ == "machine") {
      h_->machine_object = true;
      h_->machine.clear();
      in_machine_ = true;
    } else {
      Container();
    }
    ++depth_;
    return true;
  }
  bool end_object() override {
    --depth_;
    if (depth_ == 1) in_machine_ = false;
    if (depth_ == 1 || depth_ == 2) key_.clear();
    return true;
  }
  bool start_array(std::size_t) override {
    Container();
    ++depth_;
    return true;
  }
  bool end_array() override {
    --depth_;
    return true;
  }
  bool key(string_t& k) override {
    if (depth_ == 1 || (depth_ == 2 && in_machine_)) key_ = k;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    // A number out of range arrives here as out_of_range, which has no byte offset.
    if (const auto* pe = dynamic_cast<const json::parse_error*>(&e)) error_byte = pe->byte;
    return false;
  }

 private:
  // An object or array where a header string would be reads as "".
  void Container() {
    if (depth_ == 1) Top(nullptr);
    if (depth_ == 2 && in_machine_ && key_ == "name") h_->machine.clear();
  }
  bool Value(const std::string* s) {
    if (depth_ == 1) Top(s);
    if (depth_ == 2 && in_machine_ && key_ == "name") h_->machine = s ? *s : "";
    return true;
  }
  void Top(const std::string* s) {
    const std::string v = s ? *s : "";
    if (key_ == "schema") {
      h_->schema = v;
      h_->schema_is_string = s != nullptr;
    } else if (key_ == "kind") {
      h_->kind = v;
    } else if (key_ == "time") {
      h_->time = v;
    } else if (key_ == "tool") {
      h_->tool = v;
    } else if (key_ == "boot_id") {
      h_->boot_id = v;
    } else if (key_ == "hostname") {
      h_->hostname = v;
    } else if (key_ == "root") {
      h_->root = v;
      h_->has_root = s != nullptr;
    } else if (key_ == "machine") {
      h_->machine_object = false;
      h_->machine = v;
    }
  }

  RecordHeader* h_;
  int depth_ = 0;
  bool in_machine_ = false;
  std::string key_;
};

}  // namespace

Result<RecordHeader> ReadRecordHeader(const std::string& path, size_t max_bytes) {
  auto fd = OpenRegularFile(path, max_bytes);
  if (!fd) return fd.error();
  RecordHeader h;
  HeaderSax sax(&h);
  bool ok;
  bool io_failed;
  {
    FdReadBuf buf(*fd, max_bytes);
    std::istream in(&buf);
    ok = json::sax_parse(in, &sax);
    io_failed = buf.failed();
  }
  if (io_failed) {
    int err = errno;
    ::close(*fd);
    return Error::Io(path + ": cannot read (" + std::strerror(err) + ")");
  }
  if (ok) {
    ::close(*fd);
    return h;
  }
  // The line of the byte the parser stopped at: the newlines before it, read again.
  size_t line = 1, seen = 0;
  if (::lseek(*fd, 0, SEEK_SET) == 0) {
    char b[65536];
    ssize_t n;
    while (seen < sax.error_byte && (n = ::read(*fd, b, sizeof b)) > 0) {
      size_t take = std::min(static_cast<size_t>(n), sax.error_byte - seen);
      line += static_cast<size_t>(std::count(b, b + take, '\n'));
      seen += take;
    }
  }
  ::close(*fd);
  RecordHeader bad;
  bad.bad_json_line = line;
  return bad;
}

}  // namespace dossier
