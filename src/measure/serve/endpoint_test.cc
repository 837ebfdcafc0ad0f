#include "measure/serve/endpoint.h"

#include <gtest/gtest.h>

namespace dossier::serve {
namespace {

TEST(ParseEndpoint, Forms) {
  for (const char* u :
       {"http://127.0.0.1:30000", "http://127.0.0.1:30000/", "http://127.0.0.1:30000/v1",
        "http://127.0.0.1:30000/v1/", "127.0.0.1:30000"}) {
    auto e = ParseEndpoint(u);
    ASSERT_TRUE(e) << u;
    EXPECT_EQ(e->base, "http://127.0.0.1:30000") << u;
    EXPECT_EQ(e->host, "127.0.0.1");
    EXPECT_EQ(e->port, 30000);
    EXPECT_EQ(e->Url("/v1/completions"), "http://127.0.0.1:30000/v1/completions");
  }
  auto p = ParseEndpoint("https://gateway.example.com/team/llm/v1");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->base, "https://gateway.example.com/team/llm");
  EXPECT_EQ(p->port, 443);
  auto v6 = ParseEndpoint("http://[::1]:8000");
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->host, "[::1]");
  EXPECT_EQ(v6->port, 8000);
}

TEST(ParseEndpoint, CredentialsAreRedactedForDisplay) {
  auto e = ParseEndpoint("http://user:s3cret@10.0.0.5:8000/v1");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->base, "http://user:s3cret@10.0.0.5:8000");  // curl needs them
  EXPECT_EQ(e->redacted.find("s3cret"), std::string::npos);
  EXPECT_EQ(e->RedactedUrl("/v1/models").find("s3cret"), std::string::npos);
}

TEST(ParseEndpoint, Rejects) {
  EXPECT_FALSE(ParseEndpoint("ftp://host/"));
  EXPECT_FALSE(ParseEndpoint("http://host:8000/v1?token=abc"));
  EXPECT_FALSE(ParseEndpoint("http://"));
  EXPECT_FALSE(ParseEndpoint("http://host:99999999"));
}

}  // namespace
}  // namespace dossier::serve

namespace dossier::serve {
namespace {

// Without libcurl, SplitUrl falls back to SplitUrlPlain: on ordinary URLs both must agree.
TEST(SplitUrlPlain, AgreesWithLibcurlOnOrdinaryUrls) {
  for (const char* u :
       {"http://127.0.0.1:30000", "http://127.0.0.1:30000/v1/completions", "https://h.example/x/v1",
        "http://[::1]:8000/v1", "http://user:pw@host:81/p", "http://host/p?q=1#f", "HTTP://Host"}) {
    auto plain = SplitUrlPlain(u);
    ASSERT_TRUE(plain) << u;
    auto curl = SplitUrl(u);
    ASSERT_TRUE(curl) << u;  // libcurl is present where the suite runs
    EXPECT_EQ(plain->scheme, curl->scheme) << u;
    EXPECT_EQ(plain->host, curl->host) << u;
    EXPECT_EQ(plain->port, curl->port) << u;
    EXPECT_EQ(plain->explicit_port, curl->explicit_port) << u;
    EXPECT_EQ(plain->path, curl->path) << u;
    EXPECT_EQ(plain->query.empty(), curl->query.empty()) << u;
    EXPECT_EQ(plain->has_credentials, curl->has_credentials) << u;
    EXPECT_EQ(plain->user, curl->user) << u;
    EXPECT_EQ(plain->password, curl->password) << u;
  }
  for (const char* bad : {"127.0.0.1:1", "http://", "http://h:99999", "http://[::1", "http://h:x"})
    EXPECT_FALSE(SplitUrlPlain(bad)) << bad;
}

}  // namespace
}  // namespace dossier::serve
