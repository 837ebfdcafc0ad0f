// When a measurement stops describing its machine: a later record of the same machine (a collect
// or another measurement) ran in another boot. Boot ids compare only between records of one host:
// a measurement run on this machine against a collect of a captured tree (another machine's boot
// id) or a serve-bench client on a laptop says nothing about the server's boots. A measurement
// taken after a collect in the same boot is current, and so is the collect.
#pragma once

#include <string>

#include "view/view.h"

namespace dossier {

// True unless both host names are known and differ.
bool SameHost(const std::string& a, const std::string& b);

// Why a measurement of mv taken at `time` in `boot` on `host` may no longer hold ("" when it
// holds): "measured in boot 1234abcd; a collect at T ran in boot 5678ef01 (a reboot since)".
std::string MeasurementStale(const MachineView& mv, const std::string& time,
                             const std::string& boot, const std::string& host);

}  // namespace dossier
