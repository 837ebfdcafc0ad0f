// Which Proxmox VM a running QEMU is: the pid file first, and the QEMU's own "-id" where the pid
// file is missing, unreadable or names another process. A VM is never said not running while
// its QEMU runs, nor listed twice (once as a QEMU of neither Proxmox nor libvirt).
#include <gtest/gtest.h>

#include "../tests/temp_dir.h"
#include "probe/probe.h"

namespace dossier {
namespace {

using testing::TempDir;

std::string Nul(std::initializer_list<std::string> words) {
  std::string out;
  for (const auto& w : words) out += w + '\0';
  return out;
}

// VM 100 with one GPU, and its QEMU as pid 3021.
void WriteHost(const TempDir& t) {
  t.Write("etc/hostname", "pve\n");
  t.Write("etc/pve/qemu-server/100.conf",
          "name: glm5\nmachine: q35\nhostpci0: 0000:01:00.0,pcie=1\nmemory: 8192\n");
  t.Write("proc/3021/cmdline",
          Nul({"/usr/bin/kvm", "-id", "100", "-name", "glm5,debug-threads=on", "-machine",
               "type=pc-q35-9.2+pve1", "-device",
               "vfio-pci,host=0000:01:00.0,id=hostpci0,bus=ich9-pcie-port-1,addr=0x0"}));
}

Machine Collect(const TempDir& t) {
  RootFs fs(t.path());
  CollectOptions o;
  std::vector<std::string> log;
  return CollectMachine(fs, o, &log);
}

TEST(ProxmoxVmsProbe, EachWayThePidFileFailsStillFindsTheQemuByItsId) {
  struct Case {
    const char* name;
    const char* pidfile;  // nullptr: none
    const char* why;      // in the source of 'running'
  } cases[] = {
      {"no pid file", nullptr, "no pid file"},
      {"not a number", "abc\n", "pid file holds 'abc'"},
      {"another process", "4242\n", "pid 4242 from the pid file is not this VM's QEMU"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    TempDir t;
    WriteHost(t);
    if (c.pidfile) t.Write("var/run/qemu-server/100.pid", c.pidfile);
    Machine m = Collect(t);
    ASSERT_EQ(m.hypervisor.vms.size(), 1u) << "the QEMU was listed as a VM of its own";
    const Vm& vm = m.hypervisor.vms[0];
    EXPECT_EQ(vm.id, "100");
    EXPECT_TRUE(vm.running.value_or(false));
    EXPECT_EQ(vm.pid.value_or(0), 3021);
    EXPECT_NE(vm.running.source.find("/proc/3021/cmdline (-id 100; "), std::string::npos)
        << vm.running.source;
    EXPECT_NE(vm.running.source.find(c.why), std::string::npos) << vm.running.source;
    ASSERT_EQ(vm.hostpci.size(), 1u);
    EXPECT_EQ(vm.hostpci[0].running_host_address.value_or(""), "0000:01:00.0");
    EXPECT_EQ(vm.hostpci[0].guest_bus.value_or(""), "ich9-pcie-port-1");
  }
}

TEST(ProxmoxVmsProbe, APidFileNamingTheQemuIsTheSourceAndNoQemuIsNotRunning) {
  TempDir t;
  WriteHost(t);
  t.Write("var/run/qemu-server/100.pid", "3021\n");
  Machine m = Collect(t);
  ASSERT_EQ(m.hypervisor.vms.size(), 1u);
  EXPECT_EQ(m.hypervisor.vms[0].running.source, "/var/run/qemu-server/100.pid");

  TempDir other;  // the QEMU running is VM 101's: VM 100 is not running, 101 is listed apart
  WriteHost(other);
  other.Write("proc/3021/cmdline", Nul({"/usr/bin/kvm", "-id", "101", "-device",
                                        "vfio-pci,host=0000:01:00.0,id=hostpci0"}));
  Machine o = Collect(other);
  ASSERT_EQ(o.hypervisor.vms.size(), 2u);
  EXPECT_FALSE(o.hypervisor.vms[0].running.value_or(true));
  EXPECT_NE(o.hypervisor.vms[0].pid.unknown.find("no pid file"), std::string::npos);
  EXPECT_EQ(o.hypervisor.vms[1].id, "101");
  EXPECT_EQ(o.hypervisor.vms[1].config.unknown,
            "a QEMU process started by neither Proxmox nor libvirt");
}

}  // namespace
}  // namespace dossier
