// Probes: one per subsystem, each a function that reads the machine through RootFs and fills its
// part of the Machine. They never print and never format text; what fails becomes an unknown fact
// with its reason. The table in probe_table.cc runs them in order (later probes may read what
// earlier ones filled: gpus read the pci devices).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "fs/root_fs.h"
#include "model/machine.h"
#include "probe/cpuid.h"

namespace dossier {

struct CollectOptions {
  std::string machine_name;        // --machine; else the hostname
  std::vector<std::string> venvs;  // --venv DIR, Python environments to read
  // The caller's environment (name -> value). Only used for the live machine: a captured tree's
  // caller is not that machine's user.
  std::map<std::string, std::string> caller_env;
  // --nvml-lib: the NVML library to load. Empty: libnvidia-ml.so.1 on the live machine; with a
  // --root other than / NVML is off unless this names one (a stand-in for a captured tree).
  std::string nvml_lib;
  // CPUID, for the hypervisor's signature. Empty: the live CPU's on the live machine, none for a
  // --root tree (its hypervisor comes from files only). Tests give their own.
  CpuidReader cpuid;
};

struct ProbeContext {
  const RootFs& fs;
  const CollectOptions& options;
  std::vector<std::string>* log;  // progress and non-fatal problems, for stderr
};

struct ProbeEntry {
  const char* name;
  const char* what;  // one line, printed by 'dossier help probes'
  void (*run)(const ProbeContext&, Machine*);
};

const std::vector<ProbeEntry>& ProbeTable();

// Runs every probe, then derives what is computed from the probed facts (the GPU topology).
Machine CollectMachine(const RootFs& fs, const CollectOptions& options,
                       std::vector<std::string>* log);

// The probes, each in the file of its name.
void ProbeIdentity(const ProbeContext& ctx, Machine* m);        // identity.cc
void ProbeDmi(const ProbeContext& ctx, Machine* m);             // dmi.cc
void ProbeCpu(const ProbeContext& ctx, Machine* m);             // cpu.cc
void ProbeNuma(const ProbeContext& ctx, Machine* m);            // numa.cc
void ProbeVirtualization(const ProbeContext& ctx, Machine* m);  // virtualization.cc
void ProbePci(const ProbeContext& ctx, Machine* m);             // pci.cc
void ProbeIommu(const ProbeContext& ctx, Machine* m);           // iommu.cc
void ProbeKernelLog(const ProbeContext& ctx, Machine* m);       // kernel_log.cc
void ProbeHypervisor(const ProbeContext& ctx, Machine* m);      // hypervisor.cc
void ProbeGpus(const ProbeContext& ctx, Machine* m);            // gpus.cc
void ProbeServers(const ProbeContext& ctx, Machine* m);         // servers.cc
void ProbeSoftware(const ProbeContext& ctx, Machine* m);        // software.cc
void ProbeNvml(const ProbeContext& ctx, Machine* m);            // nvml.cc
void ProbeNccl(const ProbeContext& ctx, Machine* m);            // nccl.cc

}  // namespace dossier
