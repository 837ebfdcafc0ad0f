// Prometheus text exposition format (version 0.0.4) for node_exporter's textfile collector: one
// family per fact people alert on, units in the names, labels that stay bounded (machine, GPU
// index, PCI address, pair, mode, size, capability, finding id — never free text such as a
// title). docs/prometheus.md lists the families; docs/prometheus/dossier.rules.yml alerts on them.
#pragma once

#include <string>

#include "analyze/analysis.h"
#include "util/result.h"
#include "view/view.h"

namespace dossier::prometheus {

// The metrics of every machine of the view. Pure: reads the view and its analysis only.
std::string MetricsText(const View& view, const Analysis& analysis);

// Writes `text` as DIR/dossier.prom the way node_exporter asks: a temporary file in DIR (a dot
// file, which the collector ignores), fsync, rename over the old one, so a scrape never sees half
// a file.
Result<std::string> WriteTextfile(const std::string& dir, const std::string& text);

}  // namespace dossier::prometheus
