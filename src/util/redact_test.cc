#include "util/redact.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace dossier
