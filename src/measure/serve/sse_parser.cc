#include "measure/serve/sse_parser.h"

#include <cstring>

namespace dossier::serve {
namespace {

constexpr char kBom[] = "\xEF\xBB\xBF";

// The next CR or LF at or after i (string_view::find_first_of calls memchr once per byte).
size_t FindLineEnd(std::string_view s, size_t i) {
  for (; i < s.size(); ++i) {
    if (s[i] == '\n' || s[i] == '\r') return i;
  }
  return std::string_view::npos;
}

}  // namespace

bool SseParser::FeedImpl(std::string_view bytes) {
  if (failed()) return false;
  std::string held;
  if (at_start_) {
    // The first three bytes may be a BOM, possibly split across pieces: hold them until known.
    while (!bytes.empty() && line_.size() < 3 && at_start_) {
      line_.push_back(bytes.front());
      bytes.remove_prefix(1);
      if (std::memcmp(line_.data(), kBom, line_.size()) != 0) at_start_ = false;
    }
    if (at_start_ && line_.size() < 3) return true;
    if (at_start_) {
      line_.clear();  // a whole BOM: dropped
    } else {
      held.swap(line_);  // not a BOM: ordinary bytes, scanned below
    }
    at_start_ = false;
  }
  for (std::string_view s : {std::string_view(held), bytes}) {
    size_t i = 0;
    if (skip_lf_ && !s.empty()) {
      if (s[0] == '\n') i = 1;
      skip_lf_ = false;
    }
    while (i < s.size()) {
      size_t j = FindLineEnd(s, i);
      if (j == std::string_view::npos) {
        if (line_.size() + data_.size() + (s.size() - i) > max_event_bytes_) {
          Fail("an event longer than " + std::to_string(max_event_bytes_) + " bytes");
          return false;
        }
        line_.append(s.substr(i));
        break;
      }
      if (line_.empty()) {
        Line(s.substr(i, j - i));
      } else {
        if (line_.size() + data_.size() + (j - i) > max_event_bytes_) {
          Fail("an event longer than " + std::to_string(max_event_bytes_) + " bytes");
          return false;
        }
        line_.append(s.substr(i, j - i));
        std::string line;
        line.swap(line_);
        Line(line);
      }
      if (failed()) return false;
      if (s[j] == '\r') {
        if (j + 1 < s.size()) {
          if (s[j + 1] == '\n') ++j;
        } else {
          skip_lf_ = true;
        }
      }
      i = j + 1;
    }
  }
  return true;
}

void SseParser::Line(std::string_view line) {
  if (line.empty()) return Dispatch();
  if (line.front() == ':') return;  // comment (servers send ": ping" keep-alives)
  std::string_view field = line, value;
  if (size_t colon = line.find(':'); colon != std::string_view::npos) {
    field = line.substr(0, colon);
    value = line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  }
  if (field == "data") {
    if (data_.size() + value.size() + 1 > max_event_bytes_) {
      return Fail("an event longer than " + std::to_string(max_event_bytes_) + " bytes");
    }
    if (has_data_) data_.push_back('\n');
    data_.append(value);
    has_data_ = true;
  } else if (field == "event") {
    type_.assign(value);
  }
  // "id", "retry" and unknown fields are ignored, as the standard says.
}

void SseParser::Dispatch() {
  if (has_data_) {
    ++events_;
    SseEvent e{type_.empty() ? std::string_view("message") : std::string_view(type_), data_};
    dispatch_(sink_, e);
  }
  data_.clear();
  type_.clear();
  has_data_ = false;
}

void SseParser::Fail(std::string why) {
  error_ = std::move(why);
  line_.clear();
  line_.shrink_to_fit();
  data_.clear();
  data_.shrink_to_fit();
}

}  // namespace dossier::serve
