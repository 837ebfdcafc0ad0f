#include "tests/fuzz/fuzz_entries.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "analyze/analysis.h"
#include "analyze/cross_checks.h"
#include "fleet/fleet_compare.h"
#include "fleet/fleet_reader.h"
#include "generate/generator.h"
#include "hypervisor/libvirt_domain.h"
#include "hypervisor/pci_cfg.h"
#include "hypervisor/qemu_cmdline.h"
#include "hypervisor/qemu_server_conf.h"
#include "import/import_run.h"
#include "mcp/server.h"
#include "measure/serve/openai_protocol.h"
#include "measure/serve/request_trace.h"
#include "model/json_io.h"
#include "probe/dmi_processor.h"
#include "probe/nccl_topo_file.h"
#include "render/render.h"
#include "store/notes_file.h"
#include "store/record_header.h"
#include "util/redact.h"
#include "util/text.h"
#include "util/utf8.h"
#include "view/build_view.h"
// #16's entries
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include <filesystem>
#include <fstream>

#include "analyze/memory_plan.h"
#include "fs/root_fs.h"
#include "measure/serve/load_generator.h"
#include "measure/serve/local_server.h"
#include "measure/serve/openai_protocol.h"
#include "measure/serve/sharegpt_dataset.h"
#include "model/notes.h"
#include "probe/inference_env.h"
#include "probe/model_config.h"
#include "probe/pci_config.h"
#include "probe/pci_problems.h"
#include "probe/python_envs.h"
#include "probe/server_cmdline.h"
#include "tests/artifact_checks.h"
#include "tests/generator_views.h"

namespace dossier::fuzz {
namespace {

std::string_view View(const uint8_t* d, size_t n) {
  return {reinterpret_cast<const char*>(d), n};
}

void CpuList(const uint8_t* d, size_t n) {
  if (auto v = ParseCpuList(View(d, n))) (void)FormatCpuList(*v);
}

void CpuMask(const uint8_t* d, size_t n) {
  if (auto v = ParseCpuMask(View(d, n))) (void)FormatCpuList(*v);
}

// An SMBIOS processor structure (/sys/firmware/dmi/entries/4-0/raw) as the dmi probe decodes it.
void DmiProcessorRaw(const uint8_t* d, size_t n) {
  (void)DecodeDmiProcessor(View(d, n), "fuzz");
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

// A pasted text as `dossier import` reads it: detected and split (kImportAuto), or forced through
// one importer (--as). The facts are then written as the record would be: JSON that cannot be
// dumped (invalid UTF-8 let through) throws, and fails the entry.
constexpr const char* kImportAuto = "";
template <const char* const* Name>
void ImportAs(const uint8_t* d, size_t n) {
  import::ImportRun run;
  const import::Importer* forced = **Name ? import::FindImporter(*Name) : nullptr;
  if (**Name && !forced) __builtin_trap();  // the entry names an importer the table lacks
  if (!import::ImportText(View(d, n), "fuzz", forced, &run)) return;
  (void)MachineToJson(run.imported.machine).dump();
  for (const auto& m : run.imported.p2p) (void)P2pToJson(m).dump();
  for (const auto& m : run.imported.serve) (void)ServeToJson(m).dump();
  for (const auto& f : run.files) (void)nlohmann::json(f.notes).dump();
}
constexpr const char* kImpAuto = kImportAuto;
constexpr const char* kImpTopoM = "topo-m";
constexpr const char* kImpTopoP2p = "topo-p2p";
constexpr const char* kImpSmiQ = "nvidia-smi-q";
constexpr const char* kImpLspci = "lspci";
constexpr const char* kImpLspciTree = "lspci-tree";
constexpr const char* kImpIommu = "iommu-groups";
constexpr const char* kImpCmdline = "cmdline";
constexpr const char* kImpNumactl = "numactl";
constexpr const char* kImpLscpu = "lscpu";
constexpr const char* kImpDmidecode = "dmidecode";
constexpr const char* kImpVmStart = "vm-start-error";
constexpr const char* kImpBwTable = "bandwidth-table";
constexpr const char* kImpKlog = "kernel-log";
constexpr const char* kImpPciCfg = "pci-cfg";
constexpr const char* kImpQemuConf = "qemu-server-conf";
constexpr const char* kImpP2pBw = "p2p-bandwidth-latency";
constexpr const char* kImpServe = "serve-bench";
constexpr const char* kImpJson = "dossier-json";
constexpr const char* kImpNccl = "nccl-log";
// #13: the hypervisor command lines and domains, nvbandwidth, NCCL's topology dump.
constexpr const char* kImpQemuCmd = "qemu-cmdline";
constexpr const char* kImpVirsh = "virsh-dumpxml";
constexpr const char* kImpNvb = "nvbandwidth";
constexpr const char* kImpNcclTopo = "nccl-topo-xml";
constexpr const char* kImpServerLog = "server-log";
// One file as `dossier fleet` reads it (a collect record or collect/report JSON output): JSON,
// the machine model, the analysis, the facts compared, and the comparison itself.
void FleetFile(const uint8_t* d, size_t n) {
  fleet::FleetComparer cmp;
  (void)fleet::ReadFleetDocument(
      std::string(View(d, n)), "fuzz.json", [&](const fleet::NodeFacts& f) { cmp.Add(f); },
      [](std::string) {});
  (void)cmp.Finish();
}

// A notes file as `note` and `report` read it (toml_depth's bound, then toml++, then the notes
// model).
void NotesFile(const uint8_t* d, size_t n) {
  (void)ParseNotes(View(d, n), "notes.toml");
}

// A record all the way through, as `report` takes it: parsed, made a view with its history,
// analyzed by every rule, rendered in every format. The rendered text must be valid UTF-8.
void RecordReport(const uint8_t* d, size_t n) {
  dossier::Record r;
  r.doc = nlohmann::json::parse(View(d, n), nullptr, /*allow_exceptions=*/false);
  if (r.doc.is_discarded() || !r.doc.is_object()) return;
  r.file = "records/000001-fuzz.json";
  r.sequence = 1;
  r.kind =
      r.doc.value("kind", nlohmann::json()).is_string() ? r.doc["kind"].get<std::string>() : "";
  if (auto m = r.doc.find("machine"); m != r.doc.end() && m->is_object())
    if (auto name = m->find("name"); name != m->end() && name->is_string())
      r.machine = name->get<std::string>();
  FillHeaderFromDoc(&r);
  std::vector<dossier::Record> records = {r, r};  // twice: the history and diff paths run too
  records[1].file = "records/000002-fuzz.json";
  records[1].sequence = 2;
  dossier::View v = BuildView(records, Notes{}, {});
  Analysis a = Analyze(v);
  for (const auto& renderer : RendererTable()) {
    std::string text = renderer.render(v, a);
    if (!IsValidUtf8(text)) __builtin_trap();
  }
}

// Redaction must hold whatever surrounds a secret: the input is cut into words, and secrets in
// each form redaction knows are planted between them; none may survive, in an argv, a command
// line or an environment value. The plant is marked so that input bytes cannot forge it.
void RedactPlanted(const uint8_t* d, size_t n) {
  std::string_view s = View(d, n);
  std::vector<std::string> words;
  for (auto w : SplitAny(s, " \t\n")) words.emplace_back(w.substr(0, 64));
  if (words.size() > 64) words.resize(64);
  const std::string secret = "PLANTED0SECRET9x";
  for (const auto& rule : RedactionRules()) {
    // The rule's own example with its secret replaced by ours, between the fuzzer's words.
    std::string form = rule.redacted;
    size_t at = form.find(rule.secret);
    if (at == std::string::npos) continue;
    if (std::string(rule.secret) == "UzNDUjNUOng=") {
      form.replace(at, std::strlen(rule.secret), Base64(secret + ":x"));
    } else {
      form.replace(at, std::strlen(rule.secret), secret);
    }
    std::string line;
    for (size_t i = 0; i < words.size() / 2; ++i) line += words[i] + " ";
    line += form;
    for (size_t i = words.size() / 2; i < words.size(); ++i) line += " " + words[i];
    std::string out = RedactCommandLine(line);
    if (out.find(secret) != std::string::npos ||
        out.find(Base64(secret + ":x")) != std::string::npos)
      __builtin_trap();
  }
  std::vector<std::string> argv = words;
  argv.insert(argv.begin() + static_cast<long>(argv.size() / 2), {"--api-key", secret});
  for (const auto& w : RedactArgv(argv))
    if (w.find(secret) != std::string::npos) __builtin_trap();
  std::string env = RedactEnvValue("HF_TOKEN", std::string(s) + secret);
  if (env.find(secret) != std::string::npos) __builtin_trap();
}

// A tokenizer endpoint's answer (vLLM, SGLang, llama.cpp, TGI) as serve-bench counts it.
void Tokenize(const uint8_t* d, size_t n) {
  (void)serve::ParseTokenizeCount(View(d, n));
}

// --- #16: the parsers of foreign text the probes and serve-bench read -------------------------
// (one entry each; corpora under tests/corpus/<name>/ hold real samples from the fixture trees)

// A PCI device's config file as sysfs gives it: 64, 256 or 4096 bytes, or anything.
void PciConfigSpace(const uint8_t* d, size_t n) {
  std::string_view s = View(d, n);
  (void)DecodePciConfig(s, "/fuzz/config");
  (void)WalkPciCapabilities(s);
  (void)WalkPciExtendedCapabilities(s);
}

// A kernel log: a dmesg/kern.log text, and the same bytes as /dev/kmsg records.
void KernelLog(const uint8_t* d, size_t n) {
  std::string_view s = View(d, n);
  PciProblemScanner text, kmsg;
  text.AddText(s);
  size_t at = 0;
  while (at < s.size()) {
    size_t nl = s.find('\n', at);
    std::string_view rec = s.substr(at, nl == std::string_view::npos ? s.size() - at : nl - at);
    kmsg.AddKmsgRecord(rec);
    (void)PciAddressIn(StripLogPrefix(rec));
    at = nl == std::string_view::npos ? s.size() : nl + 1;
  }
}

// A model's config.json and hf_quant_config.json (the same bytes read as each).
void ModelConfigFiles(const uint8_t* d, size_t n) {
  std::string_view s = View(d, n);
  ModelConfig mc;
  ParseModelConfigText(s, "/fuzz/config.json", &mc);
  ModelQuantization q;
  ParseHfQuantConfigText(s, "/fuzz/hf_quant_config.json", &q);
  // What the report computes from it: the memory plan of its layout and the alternatives (a
  // config.json of 10^12 layers once made this walk without end).
  PlanOverrides o;
  o.gpus = GpuSpec{8, uint64_t{96} << 30};
  PlanInputs in = InputsForModel(mc, Notes{}, o);
  (void)ComputeMemoryPlan(in);
  for (const auto& alt : AlternativeLayouts(in.layout, mc, "")) {
    PlanInputs a = in;
    a.layout = alt;
    (void)ComputeMemoryPlan(a);
  }
}

// A *.dist-info/METADATA file (RFC 822 style headers, then the long description).
void DistInfoMetadata(const uint8_t* d, size_t n) {
  auto h = ParsePackageHeader(View(d, n));
  if (h.name) (void)IsInferencePackage(NormalizePackageName(*h.name));
  (void)ParseDistDirName(View(d, n));
}

// /proc/PID/cmdline, environ and stat: the same bytes read as each, and the argv as the servers
// probe reads it (engine, flags, model argument).
void ProcFiles(const uint8_t* d, size_t n) {
  std::string_view s = View(d, n);
  std::vector<std::string> argv = SplitNul(s);
  if (auto e = DetectEngine(argv)) {
    ParsedArgs a = ParseServerArgs(argv, e->args_begin, e->positional_model);
    (void)ModelArgument(e->engine, a);
  }
  (void)RenamedWorkerEngine(argv);
  (void)ParseServerArgs(argv, 0, false);
  (void)ParseEnviron(s);
  (void)ParseStatPpid(s);
}

// A file in a temporary directory of this process, for parsers that read paths.
// A file in a temporary directory of this process (removed at exit), for parsers that read
// paths; returns the directory, or "" when none could be made.
class FuzzDir {
 public:
  FuzzDir() {
    std::string t = (std::filesystem::temp_directory_path() / "dossier-fuzz-XXXXXX").string();
    if (::mkdtemp(t.data())) path_ = t;
  }
  ~FuzzDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string FuzzFile(const std::string& rel, std::string_view content) {
  static const FuzzDir dir;
  if (dir.path().empty()) return "";
  std::filesystem::path p = std::filesystem::path(dir.path()) / rel;
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary | std::ios::trunc)
      .write(content.data(), static_cast<std::streamsize>(content.size()));
  return dir.path();
}

// A ShareGPT dataset file (serve-bench --dataset).
void ShareGptFile(const uint8_t* d, size_t n) {
  std::string dir = FuzzFile("sharegpt.json", View(d, n));
  if (dir.empty()) return;
  (void)serve::LoadShareGpt(dir + "/sharegpt.json", 8, 1, std::nullopt);
  (void)serve::LoadShareGpt(dir + "/sharegpt.json", 3, 2, 16);
}

// A GET /v1/models answer.
void ModelsAnswer(const uint8_t* d, size_t n) {
  (void)serve::ParseModelList(View(d, n));
}

// /proc/net/tcp as serve-bench reads it to find the local server listening on a port.
void ProcNetTcp(const uint8_t* d, size_t n) {
  std::string dir = FuzzFile("proc/net/tcp", View(d, n));
  if (dir.empty()) return;
  FuzzFile("proc/net/tcp6", View(d, n));
  RootFs fs(dir);
  (void)serve::FindLocalServer(fs, 8000);
  (void)serve::FindLocalServer(fs, 30000);
}

// An HTTP response as the native client frames it (libhttp-parser, then the stream's events):
// a loopback server answers one request with the input's bytes and closes. Short timeouts, so
// an input that never completes a response costs 50 ms.
void HttpResponse(const uint8_t* d, size_t n) {
  int lfd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (lfd < 0 || ::bind(lfd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::listen(lfd, 4) != 0 || ::getsockname(lfd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    if (lfd >= 0) ::close(lfd);
    return;
  }
  std::string answer(reinterpret_cast<const char*>(d), n);
  std::thread server([lfd, answer] {
    pollfd p{lfd, POLLIN, 0};
    if (::poll(&p, 1, 1000) <= 0) return;
    int c = ::accept4(lfd, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) return;
    char buf[4096];
    std::string req;
    while (req.find("\r\n\r\n") == std::string::npos) {  // the head; the body is small
      pollfd q{c, POLLIN, 0};
      if (::poll(&q, 1, 200) <= 0) break;
      ssize_t r = ::recv(c, buf, sizeof buf, 0);
      if (r <= 0) break;
      req.append(buf, static_cast<size_t>(r));
    }
    for (size_t off = 0; off < answer.size();) {
      ssize_t w = ::send(c, answer.data() + off, answer.size() - off, MSG_NOSIGNAL);
      if (w <= 0) break;
      off += static_cast<size_t>(w);
    }
    ::close(c);
  });
  serve::LoadSpec spec;
  spec.url = "http://127.0.0.1:" + std::to_string(ntohs(a.sin_port)) + "/v1/completions";
  spec.client.transport = serve::Transport::kNative;
  spec.client.timeout_s = 0.05;
  spec.client.connect_timeout_s = 0.5;
  std::vector<serve::LoadItem> items = {{R"({"model":"m","prompt":"a b","max_tokens":2})", 2}};
  (void)serve::RunLoad(spec, serve::Cycle(items), {}, nullptr);
  server.join();
  ::close(lfd);
}

// --- end of #16's entries ---------------------------------------------------------------------

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

// A record's header read streaming (store/record_header.h, #12) must say what a full parse says:
// the same verdict on the JSON, the same line for an error, the same kind, time, machine.
void RecordHeaderSame(const uint8_t* d, size_t n) {
  static const std::string path = [] {
    char tmpl[] = "/tmp/dossier-fuzz-header-XXXXXX";
    int fd = ::mkstemp(tmpl);
    if (fd >= 0) ::close(fd);
    return std::string(tmpl);
  }();
  {
    std::ofstream(path, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(d), static_cast<std::streamsize>(n));
  }
  auto h = ReadRecordHeader(path, 1u << 30);
  if (!h) abort();
  std::string text(View(d, n));
  nlohmann::json j;
  size_t line = 0;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    size_t byte = std::min(e.byte, text.size());
    line = 1 + static_cast<size_t>(
                   std::count(text.begin(), text.begin() + static_cast<long>(byte), '\n'));
  } catch (const nlohmann::json::exception&) {  // a number out of range: refused, line aside
    if (h->bad_json_line == 0) abort();
    return;
  }
  if (h->bad_json_line != line) abort();
  if (line) return;
  auto str = [](const nlohmann::json& o, const char* k) {
    auto it = o.find(k);
    return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  if (h->object != j.is_object()) abort();
  if (!j.is_object()) return;
  if (h->kind != str(j, "kind") || h->time != str(j, "time") || h->tool != str(j, "tool") ||
      h->schema_is_string != (j.contains("schema") && j["schema"].is_string()))
    abort();
  auto m = j.find("machine");
  bool obj = m != j.end() && m->is_object();
  if (h->machine_object != obj) abort();
  std::string name = obj                              ? str(*m, "name")
                     : m != j.end() && m->is_string() ? m->get<std::string>()
                                                      : "";
  if (h->machine != name) abort();
}

// An NCCL topology file (#14): parsed, then checked against an empty machine and one with GPUs.
void NcclTopoXml(const uint8_t* d, size_t n) {
  NcclTopoFile f = ParseNcclTopoXml(View(d, n), "nccl.xml");
  f.file.Set("nccl.xml", "fuzz");
  Machine m;
  (void)CheckNcclTopoFile(m, f);
  Gpu g;
  g.address = "0000:01:00.0";
  g.numa_node.Set(0, "fuzz");
  m.gpus.push_back(g);
  m.numa.nodes.emplace_back();
  NcclTopoCheck c = CheckNcclTopoFile(m, f);
  if (c.problems.size() != c.sources.size()) abort();
}

// #30/#29: the generators with fuzzed facts. Every string a generator copies into an artifact
// (machine names, VM id, device ids, PCI addresses, attribute values, paths) is a field of the
// input (fields separated by 0x1e); each artifact is read back by its consumer's rules
// (tests/artifact_checks.h) and must hold only what the generator means to write: a unit with its
// own sections and keys and /bin/sh -c commands, a libvirt block of qemu:device or -set pairs,
// an NCCL file of <system>/<cpu>/<pci>, an args: line of -set words with no shell syntax.
void Generators(const uint8_t* d, size_t n) {
  std::vector<std::string> f;
  for (auto w : Split(View(d, n), '\x1e')) f.emplace_back(w);
  auto field = [&](size_t i, const std::string& def) { return i < f.size() ? f[i] : def; };
  testing::GeneratorFields g;
  g.guest = field(0, g.guest);
  g.host = field(1, g.host);
  g.vm_id = field(2, g.vm_id);
  for (size_t i = 0; i < 4; ++i) g.slots[i] = field(3 + i, g.slots[i]);
  for (size_t i = 0; i < 4; ++i) g.guest_addresses[i] = field(7 + i, g.guest_addresses[i]);
  g.class_id = field(11, g.class_id);
  g.vendor_id = field(12, g.vendor_id);
  g.cpu_vendor = field(13, g.cpu_vendor);
  g.vm_config = field(14, g.vm_config);
  g.source = field(15, g.source);
  const std::string output = field(16, "");
  const unsigned char mode = n ? d[0] : 0;
  g.libvirt = mode & 1;
  g.json_devices = mode & 2;
  dossier::View v = testing::GeneratorView(g);
  GenerateArgs a;
  a.output = output;
  if (auto r = GenerateNumaAffinity(a, v, Analysis{}); r) {
    std::vector<std::string> commands;
    if (!testing::UnitProblem(r->text, &commands).empty()) abort();
    for (const auto& c : commands) {  // echo N > /sys/bus/pci/devices/ADDR/numa_node
      std::string problem;
      auto w = testing::ShellWords(c, &problem);
      if (w.size() != 4 || w[0] != "echo" || w[2] != ">" || !w[3].starts_with("/sys/bus/pci/"))
        abort();
    }
  }
  if (auto r = GenerateNcclTopo(a, v, Analysis{}); r) {
    if (!testing::NcclTopoProblem(r->text).empty()) abort();
  }
  if (auto r = GenerateQemuArgs(a, v, Analysis{}); r) {
    if (g.libvirt) {
      if (!testing::LibvirtBlockProblem(r->text, nullptr).empty()) abort();
    } else {
      if (!r->text.starts_with("args:") || r->text.find('\n') != r->text.size() - 1) abort();
      std::string problem;
      auto w =
          testing::ShellWords(std::string_view(r->text).substr(5, r->text.size() - 6), &problem);
      if (!problem.empty() || w.size() % 2) abort();
      for (size_t i = 0; i < w.size(); i += 2)
        if (w[i] != "-set" || !w[i + 1].starts_with("device.")) abort();
    }
  }
}

// pve-mapping rewrites only iommugroup values: a fuzzed pci.cfg whose every entry is stale (its
// group now one more) comes back with the same mappings, the same entries and every other
// field the same, read by the project's own parser.
void PveMappingRoundTrip(const uint8_t* d, size_t n) {
  const std::string text(View(d, n));
  auto before = hypervisor::ParsePciCfg(text, "pci.cfg");
  MachineView host;
  host.machine.name = "pve";
  HypervisorInfo& hv = host.machine.hypervisor;
  hv.kind.Set("proxmox", "fuzz");
  hv.node.Set("pve", "fuzz");
  hv.pci_cfg.Set(text, "/etc/pve/mapping/pci.cfg");
  hv.pci_mappings = before.mappings;
  for (auto& m : hv.pci_mappings)
    for (auto& e : m.entries) {
      e.status.Set("stale", "fuzz");
      if (e.iommugroup.known() && *e.iommugroup < (int64_t{1} << 40))
        e.iommu_group_now.Set(*e.iommugroup + 1, "fuzz");
    }
  dossier::View v;
  v.machines = {host};
  GenerateArgs a;
  auto r = GeneratePveMapping(a, v, Analysis{});
  if (!r) return;
  auto after = hypervisor::ParsePciCfg(r->text, "pci.cfg");
  if (after.mappings.size() != before.mappings.size()) abort();
  for (size_t i = 0; i < before.mappings.size(); ++i) {
    const auto &x = before.mappings[i], &y = after.mappings[i];
    if (x.name != y.name || x.entries.size() != y.entries.size()) abort();
    for (size_t j = 0; j < x.entries.size(); ++j) {
      const auto &e = x.entries[j], &o = y.entries[j];
      if (e.path.value_or("") != o.path.value_or("") || e.id.value_or("") != o.id.value_or("") ||
          e.subsystem_id.value_or("") != o.subsystem_id.value_or("") ||
          e.node.value_or("") != o.node.value_or(""))
        abort();
    }
  }
  // Each group value the generator found (a unique mapping name: it looks entries up by name)
  // is the new one.
  std::map<std::string, int> names;
  for (const auto& m : before.mappings) ++names[m.name];
  for (const auto& pos : before.positions) {
    const auto& e = hv.pci_mappings[pos.mapping].entries[pos.entry];
    if (names[before.mappings[pos.mapping].name] != 1 || !e.iommu_group_now.known() ||
        pos.group_offset == std::string::npos)
      continue;
    if (after.mappings[pos.mapping].entries[pos.entry].iommugroup.value_or(-1) !=
        *e.iommu_group_now)
      abort();
  }
}

// dossier mcp's messages (#27): the bytes as a client's stdin, read to the end by the server's
// whole path (framing, JSON, lifecycle, schema checks of the arguments, tool plans, resource
// names). Tools run /bin/false instead of dossier, over a dossier that does not exist: the entry
// fuzzes the server, not the commands (the other entries do those).
void McpMessages(const uint8_t* data, size_t size) {
  int in = ::memfd_create("mcp-fuzz", MFD_CLOEXEC);
  int out = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (in < 0 || out < 0) abort();
  for (size_t off = 0; off < size;) {
    ssize_t n = ::write(in, data + off, size - off);
    if (n <= 0) abort();
    off += static_cast<size_t>(n);
  }
  ::lseek(in, 0, SEEK_SET);
  mcp::ServerOptions o;
  o.self = "/bin/false";
  o.dossier_dir = "/nonexistent/dossier-fuzz";
  o.allow_write = size % 2 == 1;  // both answers to a write: refused and planned
  o.allow_measure = size % 3 == 1;
  o.allowed_roots = {"/nonexistent/roots"};
  int saved = ::dup(2);  // the server's log lines are not the fuzzer's output
  ::dup2(out, 2);
  int rc = mcp::Serve(o, in, out);
  ::dup2(saved, 2);
  ::close(saved);
  ::close(in);
  ::close(out);
  if (rc != 0) abort();
}

}  // namespace

const std::vector<FuzzEntry>& FuzzEntries() {
  static const std::vector<FuzzEntry> kEntries = {
      // clang-format off
      {"cpulist", CpuList},
      {"cpumask", CpuMask},
      {"dmi-processor", DmiProcessorRaw},
      {"redact", Redaction},
      {"record", Record},
      {"stream", Stream},
      // dossier import: the whole path, then each importer alone (tests/corpus/import-*).
      {"import", ImportAs<&kImpAuto>},
      {"import-topo-m", ImportAs<&kImpTopoM>},
      {"import-topo-p2p", ImportAs<&kImpTopoP2p>},
      {"import-nvidia-smi-q", ImportAs<&kImpSmiQ>},
      {"import-lspci", ImportAs<&kImpLspci>},
      {"import-lspci-tree", ImportAs<&kImpLspciTree>},
      {"import-iommu-groups", ImportAs<&kImpIommu>},
      {"import-cmdline", ImportAs<&kImpCmdline>},
      {"import-kernel-log", ImportAs<&kImpKlog>},
      {"import-p2p-bandwidth-latency", ImportAs<&kImpP2pBw>},
      {"import-serve-bench", ImportAs<&kImpServe>},
      {"import-dossier-json", ImportAs<&kImpJson>},
      {"import-nccl-log", ImportAs<&kImpNccl>},
      {"import-pci-cfg", ImportAs<&kImpPciCfg>},
      {"import-qemu-server-conf", ImportAs<&kImpQemuConf>},
      {"import-qemu-cmdline", ImportAs<&kImpQemuCmd>},
      {"import-virsh-dumpxml", ImportAs<&kImpVirsh>},
      {"import-nvbandwidth", ImportAs<&kImpNvb>},
      {"import-nccl-topo-xml", ImportAs<&kImpNcclTopo>},
      {"import-numactl", ImportAs<&kImpNumactl>},
      {"import-lscpu", ImportAs<&kImpLscpu>},
      {"import-dmidecode", ImportAs<&kImpDmidecode>},
      {"import-vm-start-error", ImportAs<&kImpVmStart>},
      {"import-bandwidth-table", ImportAs<&kImpBwTable>},
      {"import-server-log", ImportAs<&kImpServerLog>},
      {"notes", NotesFile},
      {"record_report", RecordReport},
      {"redact_planted", RedactPlanted},
      {"tokenize", Tokenize},
      {"fleet", FleetFile},
      // #16
      {"pci_config", PciConfigSpace},
      {"kernel_log", KernelLog},
      {"model_config", ModelConfigFiles},
      {"dist_info", DistInfoMetadata},
      {"proc", ProcFiles},
      {"sharegpt", ShareGptFile},
      {"v1_models", ModelsAnswer},
      {"proc_net_tcp", ProcNetTcp},
      {"http_response", HttpResponse},
      {"qemu-server-conf", QemuServerConf},
      {"pci-cfg", PciCfg},
      {"qemu-cmdline", QemuCmdline},
      {"libvirt-domain", LibvirtDomain},
      {"nccl-topo", NcclTopoXml},  // #14
      {"record-header", RecordHeaderSame},  // #12
      {"generators", Generators},  // #30
      {"pve-mapping-roundtrip", PveMappingRoundTrip},  // #29
      {"mcp-messages", McpMessages},  // #27
      // clang-format on
  };
  return kEntries;
}

}  // namespace dossier::fuzz
