// Text for XML and HTML: element text or an attribute value, single- or double-quoted. One
// function for every syntax of the family — the generators' XML (an NCCL topology, a libvirt
// block) and the HTML page and its SVG pictures — so a value from data is escaped the same way
// wherever it lands.
#pragma once

#include <string>
#include <string_view>

namespace dossier {

// & < > " ' as references; tab, newline and CR as character references (a newline in an
// attribute would be read as a space); other control characters, which XML 1.0 does not allow
// even as references, as the text \xNN.
// HTML keeps tab, newline and CR as they are (a <pre> block shows its lines; HTML does not fold
// newlines in attribute values): `literal_whitespace`.
std::string XmlEscape(std::string_view s, bool literal_whitespace = false);

}  // namespace dossier
