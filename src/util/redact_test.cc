#include "util/redact.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace dossier {
namespace {

TEST(Redact, SecretEnvironmentNames) {
  EXPECT_TRUE(IsSecretName("HF_TOKEN"));
  EXPECT_TRUE(IsSecretName("OPENAI_API_KEY"));
  EXPECT_TRUE(IsSecretName("AWS_SECRET_ACCESS_KEY"));
  EXPECT_TRUE(IsSecretName("DB_PASSWORD"));
  EXPECT_TRUE(IsSecretName("GOOGLE_APPLICATION_CREDENTIALS"));
  EXPECT_FALSE(IsSecretName("NCCL_P2P_LEVEL"));
  EXPECT_FALSE(IsSecretName("CUDA_VISIBLE_DEVICES"));
  EXPECT_FALSE(IsSecretName("MONKEY_BUSINESS"));
  EXPECT_EQ(RedactEnvValue("HF_TOKEN", "hf_abc"), "<redacted>");
  EXPECT_EQ(RedactEnvValue("NCCL_DEBUG", "INFO"), "INFO");
}

TEST(Redact, OptionValuesBothForms) {
  std::vector<std::string> argv = {"python3",   "-m", "sglang.launch_server", "--api-key", "sk-1",
                                   "--tp-size", "8",  "--hf-token=hf_2",      "--token",   "t3"};
  auto r = RedactArgv(argv);
  EXPECT_EQ(r[4], "<redacted>");
  EXPECT_EQ(r[6], "8");
  EXPECT_EQ(r[7], "--hf-token=<redacted>");
  EXPECT_EQ(r[9], "<redacted>");
  for (const auto& a : r) {
    EXPECT_EQ(a.find("sk-1"), std::string::npos);
    EXPECT_EQ(a.find("hf_2"), std::string::npos);
  }
}

TEST(Redact, UrlCredentialsAndQuery) {
  EXPECT_EQ(RedactUrl("https://user:pw@example.com/x"), "https://<redacted>@example.com/x");
  EXPECT_EQ(RedactUrl("http://h/v1?api_key=abc&model=m"), "http://h/v1?api_key=<redacted>&model=m");
  EXPECT_EQ(RedactUrl("no url here"), "no url here");
  EXPECT_EQ(RedactCommandLine("root=nfs:x nfs_password=hunter2 quiet"),
            "root=nfs:x nfs_password=<redacted> quiet");
}

TEST(Redact, EveryRuleRedactsItsFormAndKeepsItsLookAlike) {
  for (const auto& r : RedactionRules()) {
    SCOPED_TRACE(r.form);
    std::string out = RedactCommandLine(r.redacted);
    EXPECT_EQ(out.find(r.secret), std::string::npos) << r.redacted << " -> " << out;
    EXPECT_NE(out.find(kRedacted), std::string::npos) << out;
    EXPECT_EQ(RedactCommandLine(r.kept), r.kept);
    // The same forms as argv words (no shell split) where they are one word.
    std::string one = r.redacted;
    if (one.find(' ') == std::string::npos) {
      auto v = RedactArgv({"python", one});
      EXPECT_EQ(v[1].find(r.secret), std::string::npos) << v[1];
    }
  }
}

TEST(Redact, NamesAreJudgedByWordsNotLetters) {
  for (const char* secret : {"HF_TOKEN", "WANDB_API_KEY", "HF_HUB_AUTH", "X-Amz-Signature", "sig",
                             "apiKey", "accessToken", "Proxy-Authorization", "Cookie"})
    EXPECT_TRUE(IsSecretName(secret)) << secret;
  for (const char* kept : {"TOKENIZERS_PARALLELISM", "max_total_tokens", "tokenizer_path",
                           "HF_TOKEN_PATH", "SSH_AUTH_SOCK", "keyboard", "X-Amz-Expires"})
    EXPECT_FALSE(IsSecretName(kept)) << kept;
  EXPECT_TRUE(IsSecretOption("-k"));
  EXPECT_TRUE(IsSecretOption("-hft"));
  EXPECT_FALSE(IsSecretOption("-tp"));
  EXPECT_FALSE(IsSecretOption("--max-total-tokens"));
  EXPECT_FALSE(IsSecretOption("--max-prefill-tokens"));
  EXPECT_FALSE(IsSecretOption("--tokenizer-path"));
}

TEST(Redact, ServerArgvFormsOfTheIssue) {
  std::vector<std::string> argv = {"python3",
                                   "-m",
                                   "vllm.entrypoints.openai.api_server",
                                   "-H",
                                   "Authorization: Bearer S3CR3T",
                                   "--header=X-Api-Key: S3CR3T",
                                   "--env=HF_TOKEN=S3CR3T",
                                   "--hf-overrides",
                                   "{\"api_key\": \"S3CR3T\"}",
                                   "--max-total-tokens",
                                   "4096",
                                   "--tokenizer-path",
                                   "/m"};
  auto r = RedactArgv(argv);
  for (const auto& a : r) EXPECT_EQ(a.find("S3CR3T"), std::string::npos) << a;
  EXPECT_EQ(r[10], "4096");
  EXPECT_EQ(r[12], "/m");
}

// A JSON body or header split into words by a shell: the key's word, then the value's.
TEST(Redact, AKeyAndItsValueInTwoWords) {
  for (const auto& argv : std::vector<std::vector<std::string>>{
           {"--extra", "{\"token\":", "\"S3CR3T\"}"},
           {"--extra", "{token:", "S3CR3T}"},  // the shell took the quotes
           {"curl", "-H", "X-Api-Key:", "S3CR3T"},
           {"--extra", "{token", ":", "S3CR3T}"},  // {"token" : "X"} with its quotes taken
           {"--api-key", "sk-a\"bc", "{\"token\":", "\"S3CR3T\"}"}}) {
    auto r = RedactArgv(argv);
    for (const auto& a : r) EXPECT_EQ(a.find("S3CR3T"), std::string::npos) << a;
  }
  // Look-alikes keep their next word: a key that names no secret, a key without its ':'.
  EXPECT_EQ(RedactArgv({"--extra", "{\"model\":", "\"m\"}"})[2], "\"m\"}");
  EXPECT_EQ(RedactArgv({"--tokenizer", "t"})[1], "t");
}

// A stray quote in an option's value runs the word pass on to the next quote; a JSON pair after
// it must still lose its value (the line fuzz_soak found, shortened).
TEST(Redact, AStrayQuoteDoesNotHideALaterPair) {
  std::string out =
      RedactCommandLine("serve --api-key sk-a\"bc --x=1 --extra {\"token\": \"S3CR3T\", \"n\": 1}");
  EXPECT_EQ(out.find("S3CR3T"), std::string::npos) << out;
  out = RedactCommandLine("serve --api-key sk-a\"bc {\"apiKey\": \"S3CR3T\"} --port 8000");
  EXPECT_EQ(out.find("S3CR3T"), std::string::npos) << out;
  EXPECT_NE(out.find("--port 8000"), std::string::npos) << out;
  // A space before the ':' only: the word pass swallows the key's word and sees no key before
  // the value's word; only the text pass over the line as it came sees the pair.
  out = RedactCommandLine("serve --api-key sk-a\"bc {\"token\" :\"S3CR3T\"}");
  EXPECT_EQ(out.find("S3CR3T"), std::string::npos) << out;
}

TEST(Redact, EnvironmentValuesCarryingOptionsOrTokens) {
  EXPECT_EQ(RedactEnvValue("VLLM_EXTRA_ARGS", "--api-key S3CR3T --tp 8"),
            "--api-key <redacted> --tp 8");
  EXPECT_EQ(RedactEnvValue("HF_HUB_AUTH", "Bearer S3CR3T"), "<redacted>");
  EXPECT_EQ(RedactEnvValue("SGLANG_EXTRA", "Bearer S3CR3T"), "Bearer <redacted>");
  EXPECT_EQ(RedactEnvValue("WANDB_API_KEY", "S3CR3T"), "<redacted>");
  EXPECT_EQ(RedactEnvValue("TOKENIZERS_PARALLELISM", "false"), "false");
  EXPECT_EQ(RedactEnvValue("LD_LIBRARY_PATH", "/a:/b  /c"), "/a:/b  /c");
}

TEST(Redact, EchoedSecretsInEveryFormTheyWereSent) {
  EchoRedactor r;
  r.AddSecret("sk-S3CR3T-key");
  r.AddUrlCredentials("alice", "p%40ss/w0rd");
  std::string body = "{\"error\": \"bad key sk-S3CR3T-key\", \"echo\": {\"x\": \"Basic " +
                     Base64("alice:p@ss/w0rd") +
                     "\"}, \"raw\": \"p@ss/w0rd\", \"seen\": \"sk-S3CR3T-key\"}";
  std::string out = r.Redact(body);
  EXPECT_EQ(out.find("S3CR3T"), std::string::npos) << out;
  EXPECT_EQ(out.find(Base64("alice:p@ss/w0rd")), std::string::npos) << out;
  EXPECT_EQ(out.find("p@ss/w0rd"), std::string::npos) << out;
  EXPECT_EQ(Base64("alice:secret"), "YWxpY2U6c2VjcmV0");
  EXPECT_EQ(Base64("ab"), "YWI=");
}

// Compound keys (head-final: the last part says what it is) and the word lists' limits.
TEST(Redact, CompoundKeysThatEndInASecretWord) {
  for (const char* secret : {"rootpassword", "rootpw", "cipassword", "rootpasswd", "clientsecret",
                             "DB_ROOTPASSWORD_FILE", "hftoken", "csrftoken", "dbpwd", "apikey",
                             "sshkey", "signingKey", "rootpasswords", "keypassphrase"})
    EXPECT_TRUE(IsSecretName(secret)) << secret;
  for (const char* kept : {"keyboard", "pci", "iommu", "passwordless", "secretary", "monkey",
                           "hotkey", "bypass", "compass", "tokens", "tokenizer", "max_tokens",
                           "passthrough", "keymap", "pcie_aspm", "ciupgrade", "cpw_mode"})
    EXPECT_FALSE(IsSecretName(kept)) << kept;
  EXPECT_EQ(RedactCommandLine("BOOT_IMAGE=/vmlinuz rootpassword=hunter2 rootpw=x2 keyboard=us"),
            "BOOT_IMAGE=/vmlinuz rootpassword=<redacted> rootpw=<redacted> keyboard=us");
}

// An empty value is empty: the next word is not taken for it, so the option after it keeps its
// own value's redaction (the fuzz soak's "--hf-token= --api-key sk-…").
TEST(Redact, AnEmptyValueDoesNotShiftTheNextWord) {
  EXPECT_EQ(RedactCommandLine("vllm serve m --hf-token= --api-key sk-SECRET"),
            "vllm serve m --hf-token= --api-key <redacted>");
  EXPECT_EQ(RedactCommandLine("TOKEN= Bearer sk-SECRET1"), "TOKEN= Bearer <redacted>");
  auto r = RedactArgv({"vllm", "--hf-token=", "--api-key", "sk-SECRET"});
  EXPECT_EQ(r[1], "--hf-token=");
  EXPECT_EQ(r[3], "<redacted>");
}

// A pasted text: each line as a command line, PEM private key blocks removed whole with the line
// count kept (the facts' line numbers still point at their lines).
TEST(Redact, PastedTextLosesItsSecretsAndItsPrivateKeysWhole) {
  std::string paste =
      "$ export HF_TOKEN=hf_S3CR3T1\n"
      "cipassword: S3CR3T2\r\n"
      "-----BEGIN OPENSSH PRIVATE KEY-----\n"
      "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
      "S3CR3T3body\n"
      "-----END OPENSSH PRIVATE KEY-----\n"
      "after the key\n"
      "x -----BEGIN RSA PRIVATE KEY----- MIIS3CR3T4 -----END RSA PRIVATE KEY----- y\n"
      "-----BEGIN CERTIFICATE-----\n"  // not a private key: kept
      "MIIcert\n"
      "-----END CERTIFICATE-----\n"
      "-----BEGIN PRIVATE KEY-----\n"
      "S3CR3T5cut";  // a paste cut inside a key
  std::string out = RedactPaste(paste);
  EXPECT_EQ(out.find("S3CR3T"), std::string::npos) << out;
  EXPECT_EQ(out.find("b3BlbnNzaC1"), std::string::npos) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), std::count(paste.begin(), paste.end(), '\n'));
  EXPECT_NE(out.find("cipassword: <redacted>\r\n"), std::string::npos) << out;
  EXPECT_NE(out.find(std::string(kRedactedKey) + "\n\n\n\nafter the key\n"), std::string::npos)
      << out;
  EXPECT_NE(out.find(std::string("x ") + kRedactedKey + " y\n"), std::string::npos) << out;
  EXPECT_NE(out.find("MIIcert"), std::string::npos) << out;
  EXPECT_TRUE(out.ends_with(std::string(kRedactedKey) + "\n")) << out;  // its last line: empty
  // A JSON file as dump(2) writes it: an argv one element a line, an env value holding options.
  std::string json =
      "  \"argv\": [\n    \"--api-key\",\n    \"S3CR3T6\",\n    \"--port\",\n    \"8000\"\n  ],\n"
      "  \"env\": {\"VLLM_ARGS\": \"--api-key S3CR3T7 --tp 8\"}\n";
  out = RedactPaste(json);
  EXPECT_EQ(out.find("S3CR3T"), std::string::npos) << out;
  EXPECT_NE(out.find("    \"<redacted>\",\n    \"--port\",\n    \"8000\"\n"), std::string::npos)
      << out;
  EXPECT_NE(out.find("\"--api-key <redacted> --tp 8\"}"), std::string::npos) << out;
}

}  // namespace
}  // namespace dossier
