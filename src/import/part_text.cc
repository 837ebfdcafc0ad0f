#include "import/part_text.h"

#include <vector>

namespace dossier::import {

CutXml CloseCutXml(const std::string& xml) {
  CutXml out;
  std::vector<std::string> stack;
  // Just after the last complete tag. The stack changes only as a tag completes, so the open
  // elements there are `stack` itself (copying it at every tag made deep XML quadratic).
  size_t good_end = 0;
  size_t i = 0, n = xml.size();
  while (i < n) {
    size_t lt = xml.find('<', i);
    if (lt == std::string::npos) break;
    if (xml.compare(lt, 4, "<!--") == 0) {
      size_t e = xml.find("-->", lt + 4);
      if (e == std::string::npos) break;
      i = e + 3;
      good_end = i;
      continue;
    }
    // The tag's end: the first '>' outside quotes.
    size_t j = lt + 1;
    char quote = 0;
    for (; j < n; ++j) {
      char c = xml[j];
      if (quote) {
        if (c == quote) quote = 0;
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '>') {
        break;
      }
    }
    if (j >= n) break;  // the tag itself is cut
    std::string_view tag(xml.data() + lt + 1, j - lt - 1);
    if (!tag.empty() && tag[0] == '/') {
      std::string name(Trim(tag.substr(1)));
      if (!stack.empty() && stack.back() == name) stack.pop_back();
    } else if (!tag.empty() && tag[0] != '?' && tag[0] != '!' && !tag.ends_with("/")) {
      size_t e = 0;
      while (e < tag.size() && !std::isspace(static_cast<unsigned char>(tag[e]))) ++e;
      stack.emplace_back(tag.substr(0, e));
    }
    i = j + 1;
    good_end = i;
  }
  const std::vector<std::string>& good_stack = stack;
  if (good_stack.empty() && Trim(std::string_view(xml).substr(good_end)).empty()) {
    out.text = xml;
    return out;
  }
  out.cut = true;
  out.text = xml.substr(0, good_end);
  out.stopped_at = 1;
  for (size_t k = 0; k < good_end; ++k) out.stopped_at += xml[k] == '\n';
  for (size_t k = 0; k < good_stack.size(); ++k) out.open += (k ? "/" : "") + good_stack[k];
  for (auto it = good_stack.rbegin(); it != good_stack.rend(); ++it) out.text += "</" + *it + ">";
  return out;
}

}  // namespace dossier::import
