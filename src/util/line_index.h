// Line numbers of byte offsets in one text, for parsers whose library reports offsets (pugixml's
// offset_debug(), a parse error's byte): the newlines are found once, each question is a binary
// search. Counting newlines from the start for every node made an XML of n elements cost n² (an
// 8,000-hostdev domain took 7 s).
#pragma once

#include <algorithm>
#include <cstddef>
#include <string_view>
#include <vector>

namespace dossier {

class LineIndex {
 public:
  explicit LineIndex(std::string_view text) : size_(text.size()) {
    for (size_t i = text.find('\n'); i != std::string_view::npos; i = text.find('\n', i + 1))
      newlines_.push_back(i);
  }
  // The 1-based line of byte `offset` (an offset past the end: the last line's number + the
  // newlines before the end, as counting would say). Negative offsets (pugixml's "unknown"): 0.
  size_t LineOf(std::ptrdiff_t offset) const {
    if (offset < 0) return 0;
    size_t off = std::min(static_cast<size_t>(offset), size_);
    return 1 + static_cast<size_t>(std::lower_bound(newlines_.begin(), newlines_.end(), off) -
                                   newlines_.begin());
  }

 private:
  size_t size_;
  std::vector<size_t> newlines_;
};

}  // namespace dossier
