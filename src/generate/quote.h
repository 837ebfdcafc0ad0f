// Quoting for the syntaxes generators write: what a generator takes from the dossier (a machine
// name, a VM id, a device alias, a PCI address, a path) is untrusted text — records and imports
// come from other machines and pastes — and goes into files run as root (a systemd unit, a
// shell line, a libvirt domain). Every value is quoted for its target here, even one that passed
// validation; identifiers that must have a syntax (a QEMU device id, a PCI address) are checked
// by the Valid* functions and left out of the artifact when they fail.
#pragma once

#include <string>
#include <string_view>

#include "util/xml_escape.h"

namespace dossier::generate {

// One POSIX shell word: as it is when it holds only characters no shell treats specially
// (letters, digits, _ . , / : = + - @ %), else single-quoted with ' written as '\''.
std::string ShellWord(std::string_view s);
// Always single-quoted (for values that are data, like a Proxmox property string).
std::string ShellQuote(std::string_view s);

// The text of a comment line in a systemd unit or a shell script ('#' and the line end are the
// caller's): control characters (a newline would start a new line, a section) and '\' (a
// trailing backslash continues the line in systemd) as \xNN.
std::string CommentText(std::string_view s);

// One argument of a systemd Exec*= line: single-quoted when it holds none of the characters
// below, else double-quoted, with '\' and '"' escaped, control
// characters as \xNN, '%' as "%%" (specifiers) and '$' as "$$" (variable expansion): systemd
// hands the program exactly `s`.
std::string SystemdExecArg(std::string_view s);

// XML text and attribute values: util/xml_escape.h.
using dossier::XmlEscape;

// Text inside an XML comment: "--" is not allowed there, nor a '-' before the closing "-->", nor
// characters XML does not allow (control characters, shown as \xNN).
std::string XmlCommentText(std::string_view s);

// Why `xml` is not well-formed XML (pugixml's parse status and offset), or "" when it is. A
// fragment with several top-level nodes (comments and one element) is accepted.
std::string XmlProblem(std::string_view xml);

// A PCI address as the kernel names devices: "0000:01:00.0" (domain of 4+ hex digits, bus,
// device, function).
bool ValidPciAddress(std::string_view s);

// A QEMU device id (QEMU's id_wellformed: a letter, then letters, digits, '-', '.', '_'), as
// -set device.ID.PROP takes it; Proxmox's hostpciN / hostpciN.0 are such ids.
bool ValidQemuId(std::string_view s);

// A libvirt device alias as <alias name=…> holds it and <qemu:device alias=…> takes it: libvirt's
// own (hostdev0) or a user alias ("ua-" then letters, digits, '-', '_'); a QEMU id as well, since
// libvirt passes it to QEMU as the device id.
bool ValidLibvirtAlias(std::string_view s);

}  // namespace dossier::generate
