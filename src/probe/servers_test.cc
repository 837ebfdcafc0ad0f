// The servers and software probes together on a machine tree shaped like the seed story's: an
// SGLang server serving GLM-5-NVFP4 from a venv with an API key on its command line and tokens in
// its environment, its worker processes, and a vLLM server of another user.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../tests/temp_dir.h"
#include "model/json_io.h"
#include "probe/model_config_testdata.h"
#include "probe/probe.h"
#include "render/render.h"
#include "view/build_view.h"

namespace dossier {
namespace {

using testing::TempDir;

// The secrets planted in the tree; none may appear in any output.
const char* const kSecrets[] = {"sk-live-SECRET123", "hf_SECRETFLAG",  "hf_ENVSECRET",
                                "sk-openai-SECRET",  "urlpass-SECRET", "urlsecret-ENV",
                                "hunter2-SECRET"};

std::string NulSeparated(std::initializer_list<std::string> words) {
  std::string out;
  for (const auto& w : words) out += w + '\0';
  return out;
}

void WriteProc(const TempDir& t, int pid, int ppid, const std::string& cmdline,
               const std::string& comm = "python3") {
  std::string p = "proc/" + std::to_string(pid) + "/";
  t.Write(p + "cmdline", cmdline);
  t.Write(p + "stat", std::to_string(pid) + " (" + comm + ") S " + std::to_string(ppid) +
                          " 1 1 0 -1 4194560 0 0\n");
}

void WriteSeedMachine(const TempDir& t) {
  t.Link("mnt:[4026531840]", "proc/self/ns/mnt");
  // SGLang in /opt/venv, serving /models/GLM-5-NVFP4 with TP8.
  WriteProc(t, 100, 1,
            NulSeparated({"/opt/venv/bin/python3",
                          "-m",
                          "sglang.launch_server",
                          "--model-path",
                          "/models/GLM-5-NVFP4",
                          "--tp-size",
                          "8",
                          "--api-key",
                          "sk-live-SECRET123",
                          "--trust-remote-code",
                          "--nsa-decode-backend",
                          "trtllm",
                          "--nsa-prefill-backend",
                          "trtllm",
                          "--hf-token=hf_SECRETFLAG",
                          "--host",
                          "0.0.0.0",
                          "--model-loader-extra-config",
                          "https://user:urlpass-SECRET@example.com/x",
                          "--mem-fraction-static",
                          "0.85"}));
  t.Link("/usr/bin/python3.12", "proc/100/exe");
  t.Link("/home/user", "proc/100/cwd");
  t.Link("mnt:[4026531840]", "proc/100/ns/mnt");
  t.Write(
      "proc/100/environ",
      NulSeparated({"PATH=/opt/venv/bin:/usr/bin", "HF_TOKEN=hf_ENVSECRET", "NCCL_P2P_LEVEL=SYS",
                    "OPENAI_API_KEY=sk-openai-SECRET", "HOME=/home/user", "SGLANG_ENABLE_SPEC_V2=1",
                    "CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7", "DB_PASSWORD=hunter2-SECRET",
                    "HF_ENDPOINT=https://u:urlsecret-ENV@hf.example.com", "TERM=xterm"}));
  // Its workers: a fork that kept the command line, renamed schedulers, a spawn helper.
  WriteProc(
      t, 101, 100,
      NulSeparated({"/opt/venv/bin/python3", "-m", "sglang.launch_server", "--model-path",
                    "/models/GLM-5-NVFP4", "--tp-size", "8", "--api-key", "sk-live-SECRET123"}));
  WriteProc(t, 102, 100, "sglang::scheduler_TP0" + std::string(40, '\0'), "sglang::schedul");
  WriteProc(t, 103, 100, "sglang::scheduler_TP1    ", "sglang::schedul");
  WriteProc(t, 104, 100, NulSeparated({"sglang::detokenizer"}), "sglang::detoken");
  WriteProc(
      t, 105, 102,
      NulSeparated({"/usr/bin/python3.12", "-c", "from multiprocessing.spawn import spawn_main"}));
  // Not servers: a grep, a shell wrapper, a kernel thread, a vanished process.
  WriteProc(t, 300, 1, NulSeparated({"grep", "sglang.launch_server"}), "grep");
  WriteProc(t, 301, 1, NulSeparated({"bash", "-c", "python -m sglang.launch_server --tp 8"}),
            "bash");
  WriteProc(t, 2, 0, "", "kthreadd");
  t.Write("proc/303/stat", "303 (gone) Z 1");

  // The venv (symlinked interpreter: /proc/PID/exe shows the system binary).
  std::string sp = "opt/venv/lib/python3.12/site-packages/";
  t.Write("opt/venv/pyvenv.cfg", "home = /usr/bin\nversion = 3.12.3\n");
  t.Link("/usr/bin/python3.12", "opt/venv/bin/python3");
  t.Write("usr/bin/python3.12", "elf");
  t.Write(sp + "torch-2.9.1.dist-info/METADATA", "Name: torch\nVersion: 2.9.1\n\n");
  t.Write(sp + "sglang-0.5.8.post1.dist-info/METADATA", "Name: sglang\nVersion: 0.5.8.post1\n");
  t.Write(sp + "flashinfer_python-0.6.3.dist-info/METADATA",
          "Name: flashinfer-python\nVersion: 0.6.3\n");
  t.Write(sp + "sgl_kernel-0.3.21.dist-info/METADATA", "Name: sgl-kernel\nVersion: 0.3.21\n");
  t.Write(sp + "transformers-5.2.0.dist-info/METADATA", "Name: transformers\nVersion: 5.2.0\n");

  t.Write("models/GLM-5-NVFP4/config.json", testing::kGlm5Config);
  t.Write("models/GLM-5-NVFP4/hf_quant_config.json", testing::kGlm5HfQuantConfig);

  // vLLM of user bob (uid 1001) on the system Python, model from bob's HF cache; its environ
  // is unreadable to us.
  WriteProc(t, 200, 1,
            NulSeparated({"/usr/bin/python3", "/usr/local/bin/vllm", "serve", "Qwen/Qwen3-30B-A3B",
                          "--tensor-parallel-size", "2", "--api-key=sk-live-SECRET123"}));
  t.Link("/usr/bin/python3.12", "proc/200/exe");
  t.Write("proc/200/status", "Name:\tvllm\nUid:\t1001\t1001\t1001\t1001\n");
  t.Write("proc/200/environ", "HF_TOKEN=hf_ENVSECRET");
  ::chmod((t.path() + "/proc/200/environ").c_str(), 0);
  t.Write("etc/passwd", "root:x:0:0:root:/root:/bin/bash\nbob:x:1001:1001::/home/bob:/bin/sh\n");
  std::string hub = "home/bob/.cache/huggingface/hub/models--Qwen--Qwen3-30B-A3B/";
  t.Write(hub + "refs/main", "c0ffee\n");
  t.Write(hub + "snapshots/c0ffee/config.json",
          R"({"architectures":["Qwen3MoeForCausalLM"],"num_hidden_layers":48,
              "num_experts":128,"num_experts_per_tok":8,"torch_dtype":"bfloat16"})");
  t.Write("usr/lib/python3/dist-packages/vllm-0.11.0.dist-info/METADATA",
          "Name: vllm\nVersion: 0.11.0\n");
  t.Write("usr/lib/python3.12/os.py", "");
}

Machine CollectServers(const TempDir& t, CollectOptions o = {}) {
  RootFs fs(t.path());
  std::vector<std::string> log;
  return CollectMachine(fs, o, &log);
}

TEST(Servers, SeedStorySglangServer) {
  TempDir t;
  WriteSeedMachine(t);
  Machine m = CollectServers(t);
  ASSERT_EQ(m.servers.size(), 2u);
  const Server& s = m.servers[0];
  EXPECT_EQ(s.pid, 100);
  EXPECT_EQ(s.engine, "sglang");
  EXPECT_EQ(s.detected_by, "-m sglang.launch_server");
  EXPECT_EQ(*s.worker_pids, (std::vector<int64_t>{101, 102, 103, 104}));
  EXPECT_EQ(s.flags.at("--tp-size"), "8");
  EXPECT_EQ(s.flags.at("--trust-remote-code"), "true");
  EXPECT_EQ(s.flags.at("--nsa-decode-backend"), "trtllm");
  EXPECT_EQ(s.flags.at("--api-key"), "<redacted>");
  EXPECT_EQ(s.flags.at("--hf-token"), "<redacted>");
  EXPECT_EQ(*s.python, "/usr/bin/python3.12");
  EXPECT_EQ(*s.python_env, "/opt/venv");
  EXPECT_EQ(*s.cwd, "/home/user");
  EXPECT_TRUE(*s.env_read);
  EXPECT_EQ(s.env.at("HF_TOKEN"), "<redacted>");
  EXPECT_EQ(s.env.at("NCCL_P2P_LEVEL"), "SYS");
  EXPECT_EQ(s.env.at("HF_ENDPOINT"), "https://<redacted>@hf.example.com");
  EXPECT_FALSE(s.env.count("OPENAI_API_KEY"));  // not a variable that matters
  EXPECT_FALSE(s.env.count("TERM"));
  // The model: GLM-5-NVFP4, 256 routed experts, 8 active, NVFP4 on the experts only.
  EXPECT_EQ(*s.model.path, "/models/GLM-5-NVFP4");
  EXPECT_EQ(*s.model.architecture, "GlmMoeDsaForCausalLM");
  EXPECT_EQ(*s.model.routed_experts, 256);
  EXPECT_EQ(*s.model.active_experts, 8);
  EXPECT_EQ(*s.model.quantization.algorithm, "NVFP4");
  EXPECT_TRUE(*s.model.quantization.attention_excluded);

  // The venv the server runs from was read, and nothing else of the system.
  ASSERT_EQ(m.software.python_envs.size(), 2u);
  const PythonEnv& e = m.software.python_envs[0];
  EXPECT_EQ(e.path, "/opt/venv");
  EXPECT_EQ(e.origin, "server pid 100");
  EXPECT_EQ(e.packages.at("sglang"), "0.5.8.post1");
  EXPECT_EQ(e.packages.at("flashinfer-python"), "0.6.3");
}

TEST(Servers, VllmOfAnotherUserWithUnreadableEnviron) {
  TempDir t;
  WriteSeedMachine(t);
  Machine m = CollectServers(t);
  ASSERT_EQ(m.servers.size(), 2u);
  const Server& v = m.servers[1];
  EXPECT_EQ(v.pid, 200);
  EXPECT_EQ(v.engine, "vllm");
  EXPECT_EQ(v.detected_by, "vllm serve");
  EXPECT_EQ(v.flags.at("--tensor-parallel-size"), "2");
  EXPECT_EQ(v.flags.at("--api-key"), "<redacted>");
  EXPECT_TRUE(v.worker_pids->empty());
  if (::geteuid() != 0) {
    EXPECT_FALSE(v.env_read.known());
    EXPECT_EQ(v.env_read.unknown, "needs root");
    EXPECT_TRUE(v.env.empty());
    // HOME from /etc/passwd finds bob's Hugging Face cache.
    EXPECT_EQ(*v.model.architecture, "Qwen3MoeForCausalLM");
  } else {
    // root reads a mode-000 file: at least the secret must not come through.
    EXPECT_EQ(v.env.at("HF_TOKEN"), "<redacted>");
  }
  EXPECT_EQ(*v.model.routed_experts, 128);
  EXPECT_EQ(*v.python_env, "/usr");  // the system prefix, read because a server runs from it
  EXPECT_EQ(m.software.python_envs[1].path, "/usr");
  EXPECT_EQ(m.software.python_envs[1].packages.at("vllm"), "0.11.0");
}

// A server whose environ gives no HOME is looked up by the user who started it: the real uid
// (the first of status's four), not the effective one a setuid wrapper or a capability change
// leaves. Each home holds a different model under the name the server was given.
TEST(Servers, HomeWithoutEnvironIsTheRealUsersFromPasswd) {
  TempDir t;
  WriteProc(t, 60, 1,
            NulSeparated({"/usr/bin/python3", "-m", "vllm.entrypoints.openai.api_server", "--model",
                          "org/m"}));
  t.Write("proc/60/status", "Name:\tpython3\nUid:\t1001\t1002\t1002\t1002\n");
  t.Write("proc/60/environ", std::string("PATH=/usr/bin\0", 14));
  t.Write("etc/passwd",
          "svc:x:1002:1002::/srv/svc:/bin/sh\nbob:x:1001:1001::/home/bob:/bin/sh\n"
          "nohome:x:1003:1003::relative:/bin/sh\n");
  for (auto [home, layers] : {std::pair{"home/bob", 48}, std::pair{"srv/svc", 12}}) {
    std::string hub = std::string(home) + "/.cache/huggingface/hub/models--org--m/";
    t.Write(hub + "refs/main", "abc\n");
    t.Write(hub + "snapshots/abc/config.json",
            "{\"architectures\":[\"LlamaForCausalLM\"],\"num_hidden_layers\":" +
                std::to_string(layers) + "}");
  }
  Machine m = CollectServers(t);
  ASSERT_EQ(m.servers.size(), 1u);
  EXPECT_EQ(m.servers[0].model.path.value_or("(unknown)"),
            "/home/bob/.cache/huggingface/hub/models--org--m/snapshots/abc")
      << m.servers[0].model.path.unknown;

  // A uid passwd lists with a home that is not absolute finds no home: the model stays a name.
  t.Write("proc/60/status", "Name:\tpython3\nUid:\t1003\t1003\t1003\t1003\n");
  Machine n = CollectServers(t);
  ASSERT_EQ(n.servers.size(), 1u);
  EXPECT_EQ(n.servers[0].model.path.value_or("(unknown)"), "org/m");  // as given, not found
}

TEST(Servers, UnreadableEnvironKeepsTheRest) {
  // Works as root too: an environ that cannot be read as a file.
  TempDir t;
  WriteProc(t, 50, 1, NulSeparated({"llama-server", "-m", "/m/q.gguf", "-ngl", "99"}),
            "llama-server");
  t.Write("proc/50/environ/x", "");  // a directory where the file should be
  t.Write("m/q.gguf", "GGUF");
  Machine m = CollectServers(t);
  ASSERT_EQ(m.servers.size(), 1u);
  const Server& s = m.servers[0];
  EXPECT_EQ(s.engine, "llama.cpp");
  EXPECT_FALSE(s.env_read.known());
  EXPECT_NE(s.env_read.unknown.find("is a directory"), std::string::npos);
  EXPECT_EQ(s.env_read.source, "/proc/50/environ");
  EXPECT_EQ(s.flags.at("-ngl"), "99");
  EXPECT_EQ(s.model.config_file.unknown, "GGUF file: config.json not applicable");
  EXPECT_EQ(s.exe.unknown, "file absent");
  EXPECT_FALSE(s.python_env.known());
}

TEST(Servers, RenamedWorkersWithoutALauncherNameTheirParent) {
  TempDir t;
  WriteProc(t, 70, 1, NulSeparated({"/usr/bin/python3", "run_engine.py", "--tp", "2"}));
  WriteProc(t, 71, 70, NulSeparated({"sglang::scheduler_TP0"}));
  WriteProc(t, 72, 70, NulSeparated({"sglang::scheduler_TP1"}));
  Machine m = CollectServers(t);
  ASSERT_EQ(m.servers.size(), 1u);
  EXPECT_EQ(m.servers[0].pid, 70);
  EXPECT_EQ(m.servers[0].engine, "sglang");
  EXPECT_EQ(m.servers[0].detected_by, "worker processes named sglang::scheduler_TP0");
  EXPECT_EQ(m.servers[0].flags.at("--tp"), "2");
  EXPECT_EQ(*m.servers[0].worker_pids, (std::vector<int64_t>{71, 72}));
}

TEST(Servers, ParentLoopsInACapturedTreeEnd) {
  TempDir t;
  WriteProc(t, 80, 81, NulSeparated({"python3", "-m", "sglang.launch_server"}));
  WriteProc(t, 81, 80, NulSeparated({"python3", "-m", "sglang.launch_server"}));
  Machine m = CollectServers(t);  // each is the other's ancestor: neither is the other's worker
  ASSERT_EQ(m.servers.size(), 2u);
  EXPECT_TRUE(m.servers[0].worker_pids->empty());
}

TEST(Servers, NoSecretAnywhereInTheOutput) {
  TempDir t;
  WriteSeedMachine(t);
  CollectOptions o;
  o.caller_env = {{"HF_TOKEN", "hf_ENVSECRET"},
                  {"NCCL_DEBUG", "INFO"},
                  {"VLLM_API_KEY", "sk-live-SECRET123"},
                  {"HF_ENDPOINT", "https://a:urlsecret-ENV@h"}};
  Machine m = CollectServers(t, o);
  std::string json = MachineToJson(m).dump();
  View view = OneShotView(m);
  std::string md = RenderMarkdown(view, Analyze(view));
  for (const char* s : kSecrets) {
    EXPECT_EQ(json.find(s), std::string::npos) << s;
    EXPECT_EQ(md.find(s), std::string::npos) << s;
  }
  EXPECT_NE(json.find("sglang.launch_server"), std::string::npos);  // the dump is not empty
  EXPECT_EQ(m.software.env.at("VLLM_API_KEY"), "<redacted>");
  EXPECT_EQ(m.software.env.at("NCCL_DEBUG"), "INFO");
  // The Markdown names what a reader needs.
  EXPECT_NE(md.find("#### sglang server, pid 100"), std::string::npos);
  EXPECT_NE(md.find("GlmMoeDsaForCausalLM"), std::string::npos);
  EXPECT_NE(md.find("| Experts, routed | 256 |"), std::string::npos);
  EXPECT_NE(md.find("| `sglang` | 0.5.8.post1 | - |"), std::string::npos) << md;
  // JSON round trip keeps the new fields.
  std::vector<std::string> warnings;
  Machine back = MachineFromJson(MachineToJson(m), &warnings);
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(*back.servers[0].model.quantization.attention_excluded, true);
  EXPECT_EQ(back.servers[0].flags, m.servers[0].flags);
  EXPECT_EQ(back.software.python_envs[0].packages, m.software.python_envs[0].packages);
}

}  // namespace
}  // namespace dossier
