#include "probe/python_envs.h"

#include <gtest/gtest.h>

#include "../tests/temp_dir.h"
#include "probe/probe.h"

namespace dossier {
namespace {

using testing::TempDir;

std::string Metadata(const std::string& name, const std::string& version) {
  return "Metadata-Version: 2.1\nName: " + name + "\nVersion: " + version +
         "\nSummary: x\n\nVersion: 0.0.0-in-the-readme\n" + std::string(200000, 'r');
}

// A venv like the seed story's: /opt/venv made from /usr/bin/python3.12.
void WriteVenv(const TempDir& t, const std::string& prefix = "opt/venv") {
  std::string sp = prefix + "/lib/python3.12/site-packages/";
  t.Write(prefix + "/pyvenv.cfg",
          "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.12.3\n");
  t.Link("/usr/bin/python3.12", prefix + "/bin/python3.12");
  t.Write(sp + "torch-2.9.1.dist-info/METADATA", Metadata("torch", "2.9.1+cu128"));
  t.Write(sp + "sglang-0.5.8.post1.dist-info/METADATA", Metadata("sglang", "0.5.8.post1"));
  t.Write(sp + "sgl_kernel-0.3.21.dist-info/METADATA", Metadata("sgl-kernel", "0.3.21"));
  t.Write(sp + "flashinfer_python-0.6.3.dist-info/METADATA",
          Metadata("flashinfer-python", "0.6.3"));
  t.Write(sp + "transformers-5.2.0.dist-info/METADATA", Metadata("transformers", "5.2.0"));
  t.Write(sp + "nvidia_nccl_cu12-2.27.3.dist-info/METADATA",
          Metadata("nvidia-nccl-cu12", "2.27.3"));
  t.Write(sp + "Flash_Attn-2.8.3.dist-info/METADATA", Metadata("flash_attn", "2.8.3"));
  t.Write(sp + "requests-2.32.3.dist-info/METADATA", Metadata("requests", "2.32.3"));
  // No Version header: the directory name says it.
  t.Write(sp + "triton-3.5.1.dist-info/METADATA", "Metadata-Version: 2.1\nName: triton\n\n");
  // Neither.
  t.Write(sp + "xformers.dist-info/METADATA", "Name: xformers\n");
  // An old egg-info file and directory.
  t.Write(sp + "numpy-1.26.4-py3.12.egg-info",
          "Metadata-Version: 1.0\nName: numpy\n"
          "Version: 1.26.4\n");
  t.Write(sp + "ray-2.40.0-py3.12.egg-info/PKG-INFO", "Name: ray\r\nVersion: 2.40.0\r\n\r\n");
}

TEST(PythonEnvs, ReadsTheInferencePackagesOfAVenv) {
  TempDir t;
  WriteVenv(t);
  RootFs fs(t.path());
  PythonEnv e = ReadPythonEnv(fs, "/opt/venv", "--venv");
  EXPECT_EQ(e.kind, "venv");
  EXPECT_EQ(*e.python_version, "3.12.3");
  EXPECT_EQ(e.python_version.source, "/opt/venv/pyvenv.cfg:3");
  EXPECT_EQ(*e.home, "/usr/bin");
  ASSERT_EQ(e.site_dirs.size(), 1u);
  std::map<std::string, std::string> want = {
      {"torch", "2.9.1+cu128"},  {"sglang", "0.5.8.post1"},
      {"sgl-kernel", "0.3.21"},  {"flashinfer-python", "0.6.3"},
      {"transformers", "5.2.0"}, {"nvidia-nccl-cu12", "2.27.3"},
      {"flash-attn", "2.8.3"},   {"triton", "3.5.1"},
      {"numpy", "1.26.4"},       {"ray", "2.40.0"}};
  EXPECT_EQ(e.packages, want);  // requests left out; xformers has no version anywhere
  std::string problems;
  for (const auto& p : e.problems) problems += p + "\n";
  EXPECT_NE(problems.find("triton-3.5.1.dist-info/METADATA: no Version header; version taken"),
            std::string::npos)
      << problems;
  EXPECT_NE(problems.find("xformers.dist-info/METADATA: no Version header and none in the "
                          "directory name"),
            std::string::npos)
      << problems;
}

TEST(PythonEnvs, HeaderParsingStopsAtTheBlankLine) {
  auto h = ParsePackageHeader("Name: a\nSummary: s\n  continued\n\nVersion: 9\n");
  EXPECT_EQ(*h.name, "a");
  EXPECT_FALSE(h.version);
  h = ParsePackageHeader("name: b\nversion:  1.0 \n");
  EXPECT_EQ(*h.version, "1.0");
  h = ParsePackageHeader(std::string("Name: \x01\x02\nVersion: ") + std::string(500, '1'));
  EXPECT_FALSE(h.name);
  EXPECT_FALSE(h.version);
  EXPECT_FALSE(ParsePackageHeader("").name);
}

// A header value is kept when it is 1 to 200 printable ASCII bytes after trimming: a name or a
// PEP 440 version is never longer, and a value past the bound is a damaged or hostile file.
TEST(PythonEnvs, HeaderValuesUpToTwoHundredPrintableBytesAreKept) {
  const std::string v200 = "1." + std::string(198, '0');
  auto h = ParsePackageHeader("Name: a\nVersion:  " + v200 + " \n");
  ASSERT_TRUE(h.version);
  EXPECT_EQ(*h.version, v200);
  h = ParsePackageHeader("Name: a\nVersion: " + v200 + "1\n");
  EXPECT_FALSE(h.version);
  EXPECT_EQ(*h.name, "a");
  // The printable range is 0x20 to 0x7e: a space inside and '~' are kept, DEL and 0x1f are not.
  EXPECT_EQ(ParsePackageHeader("Name: a b~\n").name.value_or("(none)"), "a b~");
  EXPECT_FALSE(ParsePackageHeader("Name: a\x7f\n").name);
  EXPECT_FALSE(ParsePackageHeader("Name: a\x1f\n").name);
  EXPECT_FALSE(ParsePackageHeader("Name: caf\xc3\xa9\n").name);
  EXPECT_FALSE(ParsePackageHeader("Name:    \n").name);
  // The same bound holds for a directory's name.
  auto d = ParseDistDirName("torch-" + v200 + ".dist-info");
  EXPECT_EQ(d.version.value_or("(none)"), v200);
  EXPECT_FALSE(ParseDistDirName("torch-" + v200 + "1.dist-info").version);
}

TEST(PythonEnvs, NamesArePep503) {
  EXPECT_EQ(NormalizePackageName("Flash_Attn"), "flash-attn");
  EXPECT_EQ(NormalizePackageName("nvidia_nccl_cu12"), "nvidia-nccl-cu12");
  EXPECT_EQ(NormalizePackageName("tensorrt_llm"), "tensorrt-llm");
  EXPECT_EQ(NormalizePackageName("a.-_b"), "a-b");
  EXPECT_TRUE(IsInferencePackage("nvidia-cuda-runtime-cu12"));
  EXPECT_TRUE(IsInferencePackage("huggingface-hub"));
  EXPECT_TRUE(IsInferencePackage("llama-cpp-python"));
  EXPECT_FALSE(IsInferencePackage("requests"));
  auto d = ParseDistDirName("sgl_kernel-0.3.21.dist-info");
  EXPECT_EQ(*d.name, "sgl_kernel");
  EXPECT_EQ(*d.version, "0.3.21");
  EXPECT_FALSE(ParseDistDirName("torch").name);
}

TEST(PythonEnvs, TwoVersionsOfOnePackageAreAProblem) {
  TempDir t;
  t.Write("v/pyvenv.cfg", "home = /usr/bin\n");
  t.Write("v/lib/python3.11/site-packages/torch-2.8.0.dist-info/METADATA",
          Metadata("torch", "2.8.0"));
  t.Write("v/lib/python3.11/site-packages/torch-2.9.1.dist-info/METADATA",
          Metadata("torch", "2.9.1"));
  PythonEnv e = ReadPythonEnv(RootFs(t.path()), "/v", "--venv");
  EXPECT_EQ(e.packages["torch"], "2.8.0");
  EXPECT_EQ(*e.python_version, "3.11");  // no version line: from lib/python3.11
  ASSERT_EQ(e.problems.size(), 1u);
  EXPECT_NE(e.problems[0].find("two versions installed"), std::string::npos);
}

TEST(PythonEnvs, MissingPrefixIsAProblemNotACrash) {
  TempDir t;
  PythonEnv e = ReadPythonEnv(RootFs(t.path()), "/nope", "--venv");
  EXPECT_EQ(e.kind, "unknown");
  EXPECT_EQ(e.python_version.unknown, "directory absent");
  EXPECT_TRUE(e.packages.empty());
}

TEST(PythonEnvs, SystemPrefixReadsDebianAndLocalDirs) {
  TempDir t;
  t.Write("usr/lib/python3/dist-packages/vllm-0.11.0.dist-info/METADATA",
          Metadata("vllm", "0.11.0"));
  t.Write("usr/lib/python3.12/os.py", "");
  t.Write("usr/local/lib/python3.12/dist-packages/torch-2.8.0.dist-info/METADATA",
          Metadata("torch", "2.8.0"));
  PythonEnv e = ReadPythonEnv(RootFs(t.path()), "/usr", "server pid 200");
  EXPECT_EQ(e.kind, "system");
  EXPECT_EQ(e.packages["vllm"], "0.11.0");
  EXPECT_EQ(e.packages["torch"], "2.8.0");
  EXPECT_EQ(*e.python_version, "3.12");
}

TEST(PythonEnvs, LocatesTheEnvironmentOfAProcess) {
  TempDir t;
  WriteVenv(t);
  t.Write("usr/bin/python3.12", "elf");
  t.Write("conda/envs/x/conda-meta/history", "");
  t.Write("conda/envs/x/bin/python3.11", "elf");
  RootFs fs(t.path());
  // The kernel resolved the venv's link: exe is the system binary, argv[0] names the venv.
  ProcessPython p{"/usr/bin/python3.12", "/opt/venv/bin/python3", "-m", "", {}, "7"};
  auto f = LocateEnv(fs, p);
  EXPECT_EQ(*f, "/opt/venv");
  EXPECT_EQ(f.source, "/proc/7/cmdline");
  // A bare "python3" found through the process's PATH.
  p = {"/usr/bin/python3.12", "python3.12", "-m", "", {{"PATH", "/opt/venv/bin:/usr/bin"}}, "7"};
  EXPECT_EQ(*LocateEnv(fs, p), "/opt/venv");
  // A console script's shebang: argv[1] is the script in the venv.
  p = {"/usr/bin/python3.12", "/usr/bin/python3.12", "/opt/venv/bin/sglang", "", {}, "7"};
  EXPECT_EQ(*LocateEnv(fs, p), "/opt/venv");
  // A relative argv[0], from the working directory.
  p = {"/usr/bin/python3.12", "./venv/bin/python3", "-m", "/opt/", {}, "7"};
  EXPECT_EQ(LocateEnv(fs, p).source, "/proc/7/cmdline and cwd");
  EXPECT_EQ(*LocateEnv(fs, p), "/opt/venv");
  // Conda: the interpreter lies in the env.
  p = {"/conda/envs/x/bin/python3.11", "python", "-m", "", {}, "7"};
  EXPECT_EQ(*LocateEnv(fs, p), "/conda/envs/x");
  // Nothing else: the interpreter's own prefix.
  p = {"/usr/bin/python3.12", "python3", "-m", "", {}, "7"};
  auto sys = LocateEnv(fs, p);
  EXPECT_EQ(*sys, "/usr");
  EXPECT_EQ(sys.source, "/proc/7/exe");
  p = {"", "python3", "-m", "", {}, "7"};
  EXPECT_FALSE(LocateEnv(fs, p).known());
}

TEST(PythonEnvs, ProbeDedupesVenvFlagAndVirtualEnv) {
  TempDir t;
  WriteVenv(t);
  t.Link("/opt/venv", "srv/venv-link");
  RootFs fs(t.path());
  CollectOptions o;
  o.venvs = {"/opt/venv", "/srv/venv-link/", "/opt/venv/bin/python3.12", "/missing"};
  o.caller_env = {{"VIRTUAL_ENV", "/opt/venv"}};
  std::vector<std::string> log;
  ProbeContext ctx{fs, o, &log};
  Machine m;
  Server s;
  s.pid = 42;
  s.python_env.Set("/opt/venv", "/proc/42/exe");
  m.servers.push_back(s);
  ProbePythonEnvs(ctx, &m);
  ASSERT_EQ(m.software.python_envs.size(), 2u);
  EXPECT_EQ(m.software.python_envs[0].origin, "server pid 42, --venv, $VIRTUAL_ENV");
  EXPECT_EQ(m.software.python_envs[0].packages.at("sglang"), "0.5.8.post1");
  EXPECT_EQ(m.software.python_envs[1].path, "/missing");
  EXPECT_EQ(m.software.python_envs[1].kind, "unknown");
}

TEST(NcclVersion, OneVersionIsKnownAndDisagreeingEnvironmentsAreListedEachOnce) {
  Machine m;
  PythonEnv a, b, c;
  a.path = "/opt/vllm";
  a.packages = {{"nvidia-nccl-cu12", "2.27.3"}, {"torch", "2.9.1"}};
  b.path = "/usr";
  b.packages = {{"nvidia-nccl-cu13", "2.28.9"}};
  c.path = "/opt/sglang";
  c.packages = {{"nvidia-nccl-cu12", "2.27.3"}};
  RootFs fs("/");
  CollectOptions o;
  std::vector<std::string> log;
  ProbeContext ctx{fs, o, &log};

  m.software.python_envs = {a, c};
  ProbeNccl(ctx, &m);
  EXPECT_EQ(*m.nccl.version, "2.27.3");
  EXPECT_EQ(m.nccl.version.source, "/opt/vllm (nvidia-nccl-cu12)");

  m.software.python_envs = {a, b, c};
  ProbeNccl(ctx, &m);
  EXPECT_FALSE(m.nccl.version.known());
  EXPECT_EQ(m.nccl.version.unknown,
            "Python environments hold different NCCL versions: 2.27.3 in /opt/vllm "
            "(nvidia-nccl-cu12); 2.28.9 in /usr (nvidia-nccl-cu13)");
}

}  // namespace
}  // namespace dossier
