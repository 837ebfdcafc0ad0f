// Result<T>: a value or the reason it could not be produced. Errors are values across module
// boundaries (leveldb's Status, in the shape of C++23's std::expected); only the CLI turns them
// into messages and exit codes.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace dossier {

struct Error {
  // Kinds the callers branch on; everything else is kOther with a message.
  enum Kind { kNotFound, kPermission, kInvalid, kTooLarge, kIo, kUnsupported, kOther };
  Kind kind = kOther;
  std::string message;  // says what failed and where (file, line), and what to do when known

  static Error NotFound(std::string m) { return {kNotFound, std::move(m)}; }
  static Error Permission(std::string m) { return {kPermission, std::move(m)}; }
  static Error Invalid(std::string m) { return {kInvalid, std::move(m)}; }
  static Error Io(std::string m) { return {kIo, std::move(m)}; }
  static Error TooLarge(std::string m) { return {kTooLarge, std::move(m)}; }
  static Error Unsupported(std::string m) { return {kUnsupported, std::move(m)}; }
};

template <class T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit on purpose, like expected
  Result(Error e) : v_(std::move(e)) {}      // NOLINT
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<1>(v_); }
  T value_or(T other) const { return ok() ? value() : std::move(other); }

 private:
  std::variant<T, Error> v_;
};

// For operations with nothing to return.
struct Ok {};
using Status = Result<Ok>;
inline Status OkStatus() {
  return Ok{};
}

}  // namespace dossier
