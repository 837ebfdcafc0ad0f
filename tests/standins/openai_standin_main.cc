// The stand-in OpenAI-compatible server as a program, for trying `dossier serve-bench` by hand:
//   openai_standin [--port N] [--ttft-ms X] [--itl-ms X] [--output-len N] [--lifetime-s X]
//                  [--fault none|http500|cut|badjson|stall|nousage|errorevent] [--fault-every N]
//                  [--api-key KEY] [--tokens-per-chunk N] [--continuous-usage 0|1]
//                  [--tokenize 0|1]
// Prints "http://127.0.0.1:PORT" on stdout once it listens, then serves until --lifetime-s
// (default 60) has passed.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "standins/openai_standin.h"

using dossier::testing::Fault;

int main(int argc, char** argv) {
  dossier::testing::StandinConfig cfg;
  cfg.lifetime_s = 60;
  int port = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--port")
      port = std::atoi(v.c_str());
    else if (k == "--ttft-ms")
      cfg.ttft_ms = std::atof(v.c_str());
    else if (k == "--itl-ms")
      cfg.itl_ms = std::atof(v.c_str());
    else if (k == "--output-len")
      cfg.output_len = std::atoll(v.c_str());
    else if (k == "--lifetime-s")
      cfg.lifetime_s = std::atof(v.c_str());
    else if (k == "--fault-every")
      cfg.fault_every = std::atoll(v.c_str());
    else if (k == "--tokens-per-chunk")
      cfg.tokens_per_chunk = std::atoll(v.c_str());
    else if (k == "--continuous-usage")
      cfg.continuous_usage = v == "1";
    else if (k == "--tokenize")
      cfg.tokenize_endpoint = v == "1";
    else if (k == "--api-key")
      cfg.api_key = v;
    else if (k == "--fault") {
      cfg.fault = v == "http500"      ? Fault::kHttp500
                  : v == "cut"        ? Fault::kCutStream
                  : v == "badjson"    ? Fault::kBadJson
                  : v == "stall"      ? Fault::kStall
                  : v == "nousage"    ? Fault::kNoUsage
                  : v == "errorevent" ? Fault::kErrorEvent
                                      : Fault::kNone;
    } else {
      std::fprintf(stderr, "openai_standin: unknown option %s\n", k.c_str());
      return 2;
    }
  }
  dossier::testing::StandinServer server(cfg);
  if (auto s = server.Start(port); !s) {
    std::fprintf(stderr, "openai_standin: %s\n", s.error().message.c_str());
    return 1;
  }
  std::printf("%s\n", server.base_url().c_str());
  std::fflush(stdout);
  std::this_thread::sleep_for(std::chrono::duration<double>(cfg.lifetime_s));
  return 0;
}
