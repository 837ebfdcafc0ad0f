// Dossier's Markdown to HTML, for the HTML page (html.cc). md4c parses (CommonMark with GitHub
// tables, strikethrough and task lists; no raw HTML, no autolinks without `<…>`), and this
// renderer writes the HTML itself so that what may come out is decided here, not by the text:
// no <img> ever (an image's text is shown as text), a link only to a `#fragment` of the page or
// an `https:` address (any other link is its text alone), every text escaped. The Markdown's
// data is already escaped where it enters (md_util.h); this is the second wall.
#pragma once

#include <string>
#include <string_view>

namespace dossier::html {

// The HTML of `markdown`; on a parse failure, the Markdown itself escaped in a <pre>.
std::string FromMarkdown(std::string_view markdown);

// Whether a link to `href` may be written: "#…" or "https:…" (scheme case-insensitive).
bool LinkAllowed(std::string_view href);

}  // namespace dossier::html
