// `virsh dumpxml DOMAIN` pasted back from a libvirt host (or /etc/libvirt/qemu/NAME.xml, or the
// running state /run/libvirt/qemu/NAME.xml with its <domstatus>). The XML is read by
// hypervisor/libvirt_domain.cc, the parser the host probe uses; here its facts get the pasted
// lines. Facts: hypervisor.kind "libvirt", a VM per domain with its <uuid> (the guest's SMBIOS
// UUID), machine type, NUMA cells bound by <numatune>, each PCI <hostdev> with host and guest
// address, and <qemu:commandline> (x-nv-gpudirect-clique). A paste cut off mid-document keeps
// what is complete (the open elements are closed where the text stopped) and says where.
#include <map>

#include "hypervisor/libvirt_domain.h"
#include "import/import_text.h"
#include "import/part_text.h"
#include "util/text.h"

namespace dossier::import {
namespace {

bool LvDomainLine(std::string_view t) {
  t = Trim(t);
  return t.starts_with("<domain type=") || t.starts_with("<domain xmlns") ||
         t.starts_with("<domstatus ") || t == "<domain>";
}

bool LvStarts(const Lines& lines, size_t i) {
  if (LvDomainLine(lines[i].text)) {
    // <domain> inside a <domstatus> is not a new output.
    for (size_t j = i; j-- > 0 && i - j < 4;)
      if (Trim(lines[j].text).starts_with("<domstatus")) return false;
    return true;
  }
  return false;
}

int LvDetect(const Lines& lines) {
  bool domain = false, libvirtish = false;
  for (const auto& l : lines) {
    std::string_view t = Trim(l.text);
    if (LvDomainLine(t)) domain = true;
    if (t.starts_with("<hostdev ") || t.starts_with("<devices>") || t.starts_with("<os>") ||
        t.starts_with("<vcpu") || t.starts_with("<uuid>"))
      libvirtish = true;
  }
  return domain && libvirtish ? 95 : domain ? 60 : 0;
}

// "QEMU -set/-device … x-nv-gpudirect-clique=N" in <qemu:commandline>, per host address (the
// generator writes -set device.ID.x-nv-gpudirect-clique=N with libvirt's alias "hostdevN").
void LvCliques(Vm* vm, const std::string& at) {
  if (!vm->args.known()) {
    for (auto& h : vm->hostpci)
      h.gpudirect_clique.Unknown("no <qemu:commandline> (no x-nv-gpudirect-clique)", at);
    return;
  }
  // Every "device.hostdevN.x-nv-gpudirect-clique=V" of the arguments, read once (the first for
  // each N): a search per hostdev made a domain of many hostdevs and long arguments n².
  const std::string& a = *vm->args;
  static constexpr std::string_view kDev = "device.hostdev", kKey = ".x-nv-gpudirect-clique=";
  std::map<size_t, std::string> cliques;
  for (size_t p = a.find(kDev); p != std::string::npos; p = a.find(kDev, p + 1)) {
    size_t d = p + kDev.size(), e = d;
    while (e < a.size() && e - d < 9 && a[e] >= '0' && a[e] <= '9') ++e;
    if (e == d || a.compare(e, kKey.size(), kKey) != 0) continue;
    if (e - d > 1 && a[d] == '0') continue;  // "hostdev01" is not hostdev1
    size_t k = std::stoul(a.substr(d, e - d));
    size_t b = e + kKey.size(), end = a.find_first_of(" ,", b);
    cliques.emplace(k, a.substr(b, end == std::string::npos ? std::string::npos : end - b));
  }
  for (size_t k = 0; k < vm->hostpci.size(); ++k) {
    VmHostPci& h = vm->hostpci[k];
    auto it = cliques.find(k);
    if (it == cliques.end()) {
      h.gpudirect_clique.Unknown("no x-nv-gpudirect-clique for it in <qemu:commandline>", at);
      continue;
    }
    h.gpudirect_clique.Set(it->second, at);
  }
}

Status LvParse(const Lines& lines, const ImportSource& src, Imported* out) {
  const std::string name = "\x01domain.xml";
  std::string text = JoinPartLines(lines);
  CutXml cx = CloseCutXml(text);
  hypervisor::DomainParse d = hypervisor::ParseLibvirtDomain(cx.text, name);
  if (!d.ok) {
    std::string why = d.problems.empty() ? "no <domain>" : d.problems.front();
    if (why.rfind(name, 0) == 0)
      why = why.substr(name.size() + (why.size() > name.size() && why[name.size()] == ':' ? 1 : 0));
    return Error::Invalid("not a libvirt domain: " + std::string(Trim(why)));
  }
  RemapPartSources(&d.vm, name, lines, src);
  // A <hostdev> the cut went through has no host address left: it is not kept half.
  if (cx.cut) std::erase_if(d.vm.hostpci, [](const VmHostPci& h) { return !h.host.known(); });
  size_t first = lines.front().number;
  if (cx.cut) {
    size_t line = cx.stopped_at >= 1 && cx.stopped_at <= lines.size()
                      ? lines[cx.stopped_at - 1].number
                      : lines.back().number;
    std::string note = src.file + ":" + std::to_string(line) +
                       ": the domain XML stops here (cut off) inside <" + cx.open +
                       ">; kept what came before it, the rest is not captured";
    out->notes.push_back(note);
    out->machine.hypervisor.problems.push_back(note);
  }
  for (const auto& p : d.problems) {
    std::string t = RemapPartSource(p, name, lines, src);
    if (t.rfind("imported: ", 0) == 0) t = t.substr(10);
    out->notes.push_back(t);
    out->machine.hypervisor.problems.push_back(t);
  }
  Vm& vm = d.vm;
  vm.config.Set("virsh dumpxml " + vm.id, src.At(first));
  if (!vm.running.known())
    vm.running.Unknown(
        "`virsh dumpxml` shows the definition; `virsh domstate` says whether it runs",
        src.At(first));
  if (!vm.pid.known()) vm.pid.Unknown("not in a pasted domain XML", src.At(first));
  LvCliques(&vm, vm.args.known() ? vm.args.source : src.At(first));
  for (auto& h : vm.hostpci)
    if (!h.running_host_address.known())
      h.running_host_address.Unknown("a pasted definition does not say what a running VM has",
                                     h.host.source);
  auto& hv = out->machine.hypervisor;
  if (!hv.kind.known()) hv.kind.Set("libvirt", src.At(first));
  out->facts += 1 + vm.hostpci.size();
  hv.vms.push_back(std::move(vm));
  return OkStatus();
}

}  // namespace

Importer VirshDumpxmlImporter() {
  return {"virsh-dumpxml",
          "libvirt virsh dumpxml DOMAIN (or /etc/libvirt/qemu/NAME.xml): the VM, its PCI "
          "hostdevs, uuid, NUMA binding",
          {"virsh dumpxml", "/etc/libvirt/qemu/", "/run/libvirt/qemu/"},
          LvStarts,
          LvDetect,
          LvParse};
}

}  // namespace dossier::import
