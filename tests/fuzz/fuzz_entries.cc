#include "tests/fuzz/fuzz_entries.h"

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "hypervisor/libvirt_domain.h"
#include "hypervisor/pci_cfg.h"
#include "hypervisor/qemu_cmdline.h"
#include "hypervisor/qemu_server_conf.h"
#include "measure/serve/request_trace.h"
#include "model/json_io.h"
#include "util/redact.h"
#include "util/text.h"

namespace dossier::fuzz {
namespace {

std::string_view View(const uint8_t* d, size_t n) {
  return {reinterpret_cast<const char*>(d), n};
}

void CpuList(const uint8_t* d, size_t n) {
  if (auto v = ParseCpuList(View(d, n))) (void)FormatCpuList(*v);
}

void Redaction(const uint8_t* d, size_t n) {
  std::string_view s = View(d, n);
  (void)RedactCommandLine(s);
  (void)RedactUrl(s);
}

// A record file as `dossier report` reads it: JSON, then the machine model.
void Record(const uint8_t* d, size_t n) {
  nlohmann::json j = nlohmann::json::parse(View(d, n), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return;
  std::vector<std::string> warnings;
  auto m = j.find("machine");
  if (m != j.end()) (void)MachineFromJson(*m, &warnings);
}

// A streamed response body as serve-bench reads it (SSE framing, then each event's JSON), in
// pieces cut where a socket might cut it: every 1 + (first byte % 64) bytes.
void Stream(const uint8_t* d, size_t n) {
  std::string_view s = View(d, n);
  size_t step = n > 0 ? 1 + d[0] % 64 : 1;
  serve::RequestTrace trace(0, 0, 0, 1);
  for (size_t i = 0; i < s.size(); i += step) {
    if (!trace.OnBody(static_cast<int64_t>(i), 200, s.substr(i, step))) break;
  }
  (void)trace.Finish(static_cast<int64_t>(n), 200, serve::TransferEnd{});
}

// The hypervisor parsers (#9), pure text -> facts: a qemu-server conf, pci.cfg, a QEMU command
// line as `qm showcmd` prints it and as /proc/PID/cmdline holds it, a libvirt domain.
void QemuServerConf(const uint8_t* d, size_t n) {
  (void)hypervisor::ParseQemuServerConf(View(d, n), "fuzz.conf", "100");
}
void PciCfg(const uint8_t* d, size_t n) {
  auto p = hypervisor::ParsePciCfg(View(d, n), "pci.cfg");
  for (const auto& pos : p.positions)  // the offsets the pve-mapping generator rewrites at
    if (pos.group_offset != std::string::npos && pos.group_offset + pos.group_length > n) abort();
}
void QemuCmdline(const uint8_t* d, size_t n) {
  std::string_view s = View(d, n);
  (void)hypervisor::ParseQemuShellText(s, "qm showcmd");
  std::vector<std::string> argv;
  for (auto w : Split(s, '\0')) argv.emplace_back(w);
  (void)hypervisor::ParseQemuArgv(argv, "/proc/1/cmdline");
}
void LibvirtDomain(const uint8_t* d, size_t n) {
  (void)hypervisor::ParseLibvirtDomain(View(d, n), "domain.xml");
}

}  // namespace

const std::vector<FuzzEntry>& FuzzEntries() {
  static const std::vector<FuzzEntry> kEntries = {
      {"cpulist", CpuList},
      {"redact", Redaction},
      {"record", Record},
      {"stream", Stream},
      {"qemu-server-conf", QemuServerConf},
      {"pci-cfg", PciCfg},
      {"qemu-cmdline", QemuCmdline},
      {"libvirt-domain", LibvirtDomain},
  };
  return kEntries;
}

}  // namespace dossier::fuzz
