#include "generate/select.h"

namespace dossier::generate {

bool IsGuest(const MachineView& mv) {
  return mv.machine.virtualization.guest.value_or(false);
}

Result<const MachineView*> PickMachine(const GenerateArgs& args, const View& view,
                                       bool (*fits)(const MachineView&), const char* kind) {
  if (!args.machine.empty()) {
    const MachineView* mv = view.Find(args.machine);
    if (mv) return mv;
    std::string names;
    for (const auto& m : view.machines) names += (names.empty() ? "" : ", ") + m.machine.name;
    return Error::Invalid("no machine '" + args.machine +
                          "' in the dossier (machines: " + (names.empty() ? "none" : names) + ")");
  }
  const MachineView* found = nullptr;
  int n = 0;
  for (const auto& mv : view.machines) {
    if (!fits(mv)) continue;
    found = &mv;
    ++n;
  }
  if (n == 1) return found;
  return Error::Invalid(std::string(n == 0 ? "no " : "several machines are a ") + kind +
                        (n == 0 ? " in the dossier" : "") + ": name one with --machine NAME");
}

Result<const MachineLink*> LinkOf(const View& view, const MachineView& guest) {
  if (const MachineLink* l = view.HostLinkOf(guest.machine.name)) return l;
  std::string why;
  if (!IsGuest(guest))
    why = "'" + guest.machine.name + "' is not a virtual machine";
  else
    why = "no host is linked to the guest '" + guest.machine.name +
          "': collect its host into this dossier (dossier collect on the host, or dossier import "
          "of its files); they link by the guest's SMBIOS UUID (collect the guest as root) or by "
          "'dossier note machine " +
          guest.machine.name + " --host HOST --vm VMID'";
  return Error::Invalid(why + ". Nothing is guessed without the host's facts.");
}

Result<LinkedGuest> PickLinkedGuest(const GenerateArgs& args, const View& view) {
  auto guest = PickMachine(args, view, IsGuest, "guest");
  if (!guest) return guest.error();
  auto link = LinkOf(view, **guest);
  if (!link) return link.error();
  LinkedGuest out{&(*guest)->machine, *link, HostOf(view, **link)};
  if (!out.host_side.host)
    return Error::Invalid("the host '" + (*link)->host + "' of '" + (*link)->guest +
                          "' is not in the dossier: collect it here (dossier collect on the host, "
                          "or dossier import of its files)");
  return out;
}

}  // namespace dossier::generate
