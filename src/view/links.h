// Links between the machines of a view: which guest runs as which VM on which host. Automatic when
// the guest's SMBIOS UUID (dmi.product_uuid, root only) equals a VM's smbios1 uuid / libvirt
// <uuid> on a host of the dossier; otherwise from the notes (`dossier note machine GUEST --host
// HOST --vm ID`). Each link says which way it was made, and carries the passthrough map
// (view/passthrough.h). Pure; problems become view warnings.
#pragma once

#include "view/view.h"

namespace dossier {

void LinkMachines(View* view);

}  // namespace dossier
