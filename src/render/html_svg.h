// The pictures of the HTML document, drawn by dossier as inline SVG (no script, no font, no
// network): per machine the PCIe tree from root complexes to GPUs, coloured by link state and
// NUMA node; per GPU pair the bandwidth against message size (log axes, P2P and staged, the link
// limit as a line); per serving endpoint the throughput and latency against concurrency with the
// targets of the notes. Each returns "" when the dossier lacks what it needs.
#pragma once

#include <string>
#include <string_view>

#include "analyze/analysis.h"
#include "view/view.h"

namespace dossier::html {

// Text and attribute values of the page: util/xml_escape.h's XmlEscape, the one escaping of
// the XML family.
std::string Escape(std::string_view s);

// For a guest whose host the view links (view.links), each GPU also names the host GPU behind it
// with its NUMA node and root complex, and is filled by the host's NUMA node.
std::string TopologySvg(const View& view, const MachineView& mv);
// One chart per measured GPU pair of the newest p2p sweep (at most `max_pairs`; the rest are
// counted in a line below them).
std::string P2pCharts(const MachineView& mv, size_t max_pairs = 12);
std::string ServeCharts(const MachineView& mv, const Analysis& a);

}  // namespace dossier::html
