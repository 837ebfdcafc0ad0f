// The HTML document: the Markdown handoff document's sections (markdown.h), each converted by
// html_markdown.h (md4c's parser with dossier's own writer: no raw HTML, no image, no link but
// to a fragment or https:, so foreign text in the dossier cannot inject markup), in collapsible
// <details>, the summary first and open, with dossier's own SVG pictures (html_svg.h) at the
// head of the discoveries and the measurements. One self-contained file: no script, no external
// style, font or image, so it opens offline; CSS for narrow windows and for print. Its
// Content-Security-Policy says so to the browser: nothing may load from anywhere, no script
// runs, and the one <style> is allowed by its SHA-256.
#include "render/html_markdown.h"
#include "render/html_svg.h"
#include "render/markdown.h"
#include "render/render.h"
#include "util/sha256.h"

namespace dossier {
namespace {

constexpr const char* kHtmlStyle = R"(
:root { color-scheme: light; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0;
       color: #1d1d1d; background: #fff; }
main { max-width: 1100px; margin: 0 auto; padding: 12px 16px 40px; }
h1 { font-size: 1.6em; margin: 0.4em 0 0.2em; }
h2 { font-size: 1.25em; display: inline; }
h3 { font-size: 1.1em; margin-top: 1.2em; }
h4 { font-size: 1em; margin-top: 1em; }
.gen { color: #555; font-size: 0.9em; }
#summary { border: 2px solid #1d1d1d; border-radius: 6px; padding: 4px 14px 8px; margin: 12px 0; }
#summary h2 { display: block; margin: 0.4em 0; }
details { border-top: 1px solid #ccc; padding: 6px 0; }
summary { cursor: pointer; padding: 4px 0; }
table { border-collapse: collapse; margin: 6px 0; font-size: 0.9em; display: block;
        overflow-x: auto; max-width: 100%; }
th, td { border: 1px solid #ccc; padding: 2px 6px; text-align: left; vertical-align: top; }
th { background: #f2f2f2; }
code { font-size: 0.9em; background: #f4f4f4; padding: 0 2px; border-radius: 2px;
       overflow-wrap: anywhere; }
blockquote { margin: 6px 0; padding: 4px 10px; border-left: 4px solid #c77c00;
             background: #fff8ec; }
.pictures { display: flex; flex-wrap: wrap; gap: 10px; margin: 8px 0; }
svg.chart { width: 420px; max-width: 100%; height: auto; }
svg.topo { width: 100%; height: auto; }
svg text { font: 11px sans-serif; fill: #1d1d1d; }
svg text.t { font-weight: bold; font-size: 12px; }
svg text.b { font-weight: bold; }
svg text.s { font-size: 10px; }
svg .plot { fill: #fcfcfc; stroke: #999; }
svg .grid { stroke: #e2e2e2; }
svg .rc { fill: #eeeeee; stroke: #444; }
svg .pass { stroke: #444; stroke-width: 1.5; stroke-dasharray: 5 4; fill: none; }
.more { font-size: 0.9em; color: #555; }
@media (max-width: 600px) { body { font-size: 14px; } main { padding: 6px; } }
@media print {
  main { max-width: none; padding: 0; }
  details { break-inside: auto; }
  summary { list-style: none; }
  table { display: table; overflow: visible; }
  svg { break-inside: avoid; }
}
)";

std::string HtmlFromMarkdown(const std::string& markdown) {
  return html::FromMarkdown(markdown);
}

// Nothing loads, nothing runs: no default source, no script, no frame, no form, no base; the
// page's own <style> by its hash; inline SVG needs no source.
std::string HtmlContentSecurityPolicy() {
  auto h = Sha256(kHtmlStyle);
  return "default-src 'none'; style-src 'sha256-" + Base64(h.data(), h.size()) +
         "'; img-src 'none'; script-src 'none'; object-src 'none'; frame-src 'none'; "
         "base-uri 'none'; form-action 'none'";
}

std::string HtmlSlug(const std::string& title) {
  std::string s;
  for (char c : title) {
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
      s += c;
    else if (c >= 'A' && c <= 'Z')
      s += static_cast<char>(c - 'A' + 'a');
    else if (!s.empty() && s.back() != '-')
      s += '-';
  }
  while (!s.empty() && s.back() == '-') s.pop_back();
  return s;
}

std::string HtmlPictures(const std::string& inner) {
  return inner.empty() ? "" : "<div class=\"pictures\">" + inner + "</div>\n";
}

}  // namespace

std::string RenderHtml(const View& view, const Analysis& a) {
  std::string o =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"" +
      HtmlContentSecurityPolicy() +
      "\">\n<meta name=\"viewport\" content=\"width=device-width, "
      "initial-scale=1\">\n<title>Dossier" +
      (view.notes.goal.empty() ? std::string() : ": " + html::Escape(view.notes.goal)) +
      "</title>\n<style>" + kHtmlStyle + "</style>\n</head>\n<body>\n<main>\n<h1>Dossier</h1>\n";
  o += "<p class=\"gen\">Generated " + html::Escape(view.generated_at) +
       (view.dossier_path.empty()
            ? ""
            : " from the dossier in <code>" + html::Escape(view.dossier_path) + "</code>") +
       ". Sections fold; the pictures are drawn from the same facts as the tables.</p>\n";
  for (const auto& w : view.warnings)
    o += "<blockquote>warning: " + html::Escape(w) + "</blockquote>\n";
  bool one_shot = view.dossier_path.empty();
  for (const auto& s : MdDocumentSections()) {
    if (one_shot && s.from_notes) continue;
    std::string body;
    s.render(view, a, &body);
    if (one_shot && body.empty()) continue;
    std::string id = HtmlSlug(s.title);
    if (id == "summary") {
      o += "<section id=\"summary\">\n<h2>Summary</h2>\n" + HtmlFromMarkdown(body) + "</section>\n";
      continue;
    }
    std::string pictures;
    if (id == "discoveries-from-the-hardware-up")
      for (const auto& mv : view.machines) pictures += html::TopologySvg(view, mv);
    if (id == "measurements")
      for (const auto& mv : view.machines)
        pictures += html::P2pCharts(mv) + html::ServeCharts(mv, a);
    // Open, so the page prints whole and the pictures show; the legend starts folded.
    bool open = id != "legend";
    o += "<details id=\"" + id + "\"" + (open ? " open" : "") + ">\n<summary><h2>" +
         html::Escape(s.title) + "</h2></summary>\n" + HtmlPictures(pictures) +
         HtmlFromMarkdown(body) + "</details>\n";
  }
  o += "</main>\n</body>\n</html>\n";
  return o;
}

}  // namespace dossier
