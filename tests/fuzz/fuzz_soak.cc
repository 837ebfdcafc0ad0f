// A fuzz run of every entry of tests/fuzz/fuzz_entries.cc without libFuzzer: random mutations
// (bit and byte changes, inserted and erased runs, repeated runs, splices of two samples, boundary
// numbers, truncation) of each entry's corpus, chained through a pool of earlier mutants. It is
// blind where libFuzzer follows coverage (scripts/fuzz.sh, by hand), but it runs every parser on
// every pass, and what it finds is kept. Two ways to run it:
//
//   - Deterministic (--inputs N, the suite and CI's sanitizer pass): a fixed number of inputs per
//     entry from a fixed seed (--seed, default 1), each entry's mutations drawn from its own
//     generator seeded by the seed and the entry's name, the corpus read in name order. The same
//     commit gives the same inputs, so the same verdict: a red run is a reason, never bad luck.
//   - A hunt (--seconds S, scripts/fuzz-hunt.sh): a random seed unless one is given, bounded by
//     time per entry. What it finds is saved to CRASH_DIR and becomes a corpus file (and a test),
//     so the deterministic run covers it from then on.
//
// usage: dossier_fuzz_soak (--inputs N | --seconds S) [--seed N] [--entry NAME] [--corpus DIR]
//                          [--crash-dir DIR]
// A crash (a sanitizer report, a signal, an uncaught exception) or an input that runs longer than
// 10 s leaves the input in CRASH_DIR/ENTRY-crash (or -timeout) and exits non-zero; rerun one with
// the same --seed, or feed the file to the entry's corpus directory and the suite's Corpus test.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_entries.h"

// ASan's and UBSan's runtime call this before they end the process; absent without sanitizers.
extern "C" void __sanitizer_set_death_callback(void (*)(void)) __attribute__((weak));

namespace {

constexpr unsigned kInputSeconds = 10;  // one input running longer is a hang
constexpr size_t kPoolMax = 256;        // mutants kept to mutate further
constexpr size_t kInputMax = 1 << 20;   // inputs never grow past this

// What a dying process writes: set before each input, read from a signal handler, so plain
// buffers (no allocation there).
const std::string* g_input = nullptr;
char g_crash_path[4096];
char g_timeout_path[4096];
volatile sig_atomic_t g_saved = 0;

void SaveInput(const char* path) {
  if (g_saved || !g_input) return;
  g_saved = 1;
  int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  const char* p = g_input->data();
  size_t left = g_input->size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n <= 0) break;
    p += n;
    left -= static_cast<size_t>(n);
  }
  ::close(fd);
  const char msg[] = "fuzz-soak: the input that failed is in ";
  (void)!::write(2, msg, sizeof msg - 1);
  (void)!::write(2, path, std::strlen(path));
  (void)!::write(2, "\n", 1);
}

void OnDeath() {
  SaveInput(g_crash_path);
}

void OnSignal(int sig) {
  SaveInput(g_crash_path);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void OnAlarm(int) {
  SaveInput(g_timeout_path);
  _exit(3);
}

// The harness's own check (ctest FuzzSoak.ACrashLeavesItsInput): an entry that fails on every
// input, so a test can see that the failing input is kept and the run fails.
void SelfTestAbort(const uint8_t*, size_t) {
  std::abort();
}

std::string Slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class Mutator {
 public:
  explicit Mutator(uint64_t seed) : rng_(seed) {}

  size_t Below(size_t n) { return n == 0 ? 0 : static_cast<size_t>(rng_() % n); }

  // One to five changes of `s`; `other` is another sample to splice from.
  void Mutate(std::string* s, const std::string& other) {
    int changes = 1 + static_cast<int>(Below(5));
    for (int i = 0; i < changes; ++i) Once(s, other);
    if (s->size() > kInputMax) s->resize(kInputMax);
  }

 private:
  void Once(std::string* s, const std::string& other) {
    static const char* const kNumbers[] = {"0",
                                           "-1",
                                           "1",
                                           "255",
                                           "256",
                                           "65535",
                                           "-0",
                                           "2147483647",
                                           "2147483648",
                                           "4294967295",
                                           "4294967296",
                                           "9223372036854775807",
                                           "1e309",
                                           "nan",
                                           "-inf",
                                           "0x",
                                           "99999999999999999999999999"};
    static const char* const kBytes[] = {"\n", "\r\n", "\"",   "\\",   "{", "}",
                                         "[",  "]",    ":",    "=",    ",", " ",
                                         "\t", "\x00", "\xff", "\xc3", "<", ">"};
    switch (Below(10)) {
      case 0:  // flip a bit
        if (!s->empty()) (*s)[Below(s->size())] ^= static_cast<char>(1u << Below(8));
        break;
      case 1:  // set a byte
        if (!s->empty()) (*s)[Below(s->size())] = static_cast<char>(rng_());
        break;
      case 2: {  // insert random bytes
        std::string r(1 + Below(8), '\0');
        for (char& c : r) c = static_cast<char>(rng_());
        s->insert(Below(s->size() + 1), r);
        break;
      }
      case 3:  // erase a run
        if (!s->empty()) {
          size_t at = Below(s->size());
          s->erase(at, 1 + Below(std::min<size_t>(64, s->size() - at)));
        }
        break;
      case 4:  // repeat a run
        if (!s->empty()) {
          size_t at = Below(s->size());
          std::string run = s->substr(at, 1 + Below(64));
          for (size_t k = 1 + Below(16); k > 0; --k) s->insert(at, run);
        }
        break;
      case 5: {  // splice in a piece of another sample
        if (other.empty()) break;
        size_t from = Below(other.size());
        s->insert(Below(s->size() + 1), other.substr(from, 1 + Below(256)));
        break;
      }
      case 6: {  // a boundary number where a digit was
        std::vector<size_t> digits;
        for (size_t i = 0; i < s->size() && digits.size() < 64; ++i)
          if ((*s)[i] >= '0' && (*s)[i] <= '9') digits.push_back(i);
        if (digits.empty()) break;
        size_t at = digits[Below(digits.size())];
        size_t end = at;
        while (end < s->size() && (*s)[end] >= '0' && (*s)[end] <= '9') ++end;
        s->replace(at, end - at, kNumbers[Below(std::size(kNumbers))]);
        break;
      }
      case 7: {  // a structural byte
        const char* b = kBytes[Below(std::size(kBytes))];
        s->insert(Below(s->size() + 1), b, std::max<size_t>(1, std::strlen(b)));
        break;
      }
      case 8:  // truncate
        s->resize(Below(s->size() + 1));
        break;
      default: {  // swap two lines
        size_t a = s->find('\n', Below(s->size() + 1));
        size_t b = a == std::string::npos ? a : s->find('\n', a + 1);
        if (b == std::string::npos) break;
        size_t c = s->find('\n', b + 1);
        if (c == std::string::npos) c = s->size();
        std::string first = s->substr(a + 1, b - a), second = s->substr(b + 1, c - b - 1);
        s->replace(a + 1, c - a - 1, second + "\n" + first.substr(0, first.size() - 1));
        break;
      }
    }
  }
  std::mt19937_64 rng_;
};

struct Options {
  double seconds = 5;
  uint64_t inputs = 0;  // per entry; 0: bounded by --seconds instead
  uint64_t seed = 0;
  bool seed_given = false, seconds_given = false;
  std::string entry;
  unsigned shard = 0, shards = 1;  // --shard K/N: the entries whose index is K modulo N
  std::string corpus = DOSSIER_SOURCE_DIR "/tests/corpus";
  std::string crash_dir = ".";
};

int Usage(const char* why) {
  std::fprintf(
      stderr,
      "dossier_fuzz_soak: %s\nusage: dossier_fuzz_soak (--inputs N | --seconds S) [--seed N] "
      "[--entry NAME] [--shard K/N] [--corpus DIR] [--crash-dir DIR]\n",
      why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc) return Usage(("no value after " + a).c_str());
    std::string v = argv[++i];
    char* end = nullptr;
    if (a == "--seconds") {
      o.seconds = std::strtod(v.c_str(), &end);
      if (*end || !(o.seconds >= 0)) return Usage("--seconds takes a number of seconds");
      o.seconds_given = true;
    } else if (a == "--inputs") {
      o.inputs = std::strtoull(v.c_str(), &end, 10);
      if (*end || v.empty() || v[0] == '-' || o.inputs == 0)
        return Usage("--inputs takes a positive number of inputs per entry");
    } else if (a == "--seed") {
      o.seed = std::strtoull(v.c_str(), &end, 10);
      if (*end) return Usage("--seed takes a number");
      o.seed_given = true;
    } else if (a == "--entry") {
      o.entry = v;
    } else if (a == "--shard") {
      // ctest runs the shards side by side; each entry's inputs are its own (seeded by its
      // name), so a shard finds what the whole run would find in that entry.
      unsigned k = 0, n = 0;
      char slash = 0, extra = 0;
      if (std::sscanf(v.c_str(), "%u%c%u%c", &k, &slash, &n, &extra) != 3 || slash != '/' ||
          n == 0 || k >= n)
        return Usage("--shard takes K/N with K below N (0/4 ... 3/4)");
      o.shard = k;
      o.shards = n;
    } else if (a == "--corpus") {
      o.corpus = v;
    } else if (a == "--crash-dir") {
      o.crash_dir = v;
    } else {
      return Usage(("unknown option " + a).c_str());
    }
  }
  if (o.inputs > 0 && o.seconds_given) return Usage("--inputs and --seconds: one or the other");
  if (!o.seed_given) o.seed = o.inputs > 0 ? 1 : std::random_device{}();

  std::vector<dossier::fuzz::FuzzEntry> entries = dossier::fuzz::FuzzEntries();
  if (o.entry == "selftest-abort") entries = {{"selftest-abort", SelfTestAbort}};
  if (!o.entry.empty()) {
    std::erase_if(entries, [&](const auto& e) { return o.entry != e.name; });
    if (entries.empty()) return Usage(("no fuzz entry named " + o.entry).c_str());
  }
  if (o.shards > 1) {
    std::vector<dossier::fuzz::FuzzEntry> mine;
    for (size_t i = o.shard; i < entries.size(); i += o.shards) mine.push_back(entries[i]);
    entries = std::move(mine);
  }
  std::error_code ec;
  std::filesystem::create_directories(o.crash_dir, ec);

  if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(OnDeath);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::signal(sig, OnSignal);
  ::signal(SIGALRM, OnAlarm);

  if (o.inputs > 0)
    std::fprintf(stderr, "fuzz-soak: seed %llu, %llu inputs per entry, %zu entries\n",
                 static_cast<unsigned long long>(o.seed), static_cast<unsigned long long>(o.inputs),
                 entries.size());
  else
    std::fprintf(stderr, "fuzz-soak: seed %llu, %.1f s per entry, %zu entries\n",
                 static_cast<unsigned long long>(o.seed), o.seconds, entries.size());
  uint64_t total = 0;
  for (const auto& e : entries) {
    std::snprintf(g_crash_path, sizeof g_crash_path, "%s/%s-crash", o.crash_dir.c_str(), e.name);
    std::snprintf(g_timeout_path, sizeof g_timeout_path, "%s/%s-timeout", o.crash_dir.c_str(),
                  e.name);
    // Each entry its own generator: adding an entry or a corpus file elsewhere changes no other
    // entry's inputs.
    Mutator mut(o.seed ^ dossier::fuzz::EntrySeed(e.name));
    std::vector<std::string> pool;
    std::filesystem::path dir = std::filesystem::path(o.corpus) / e.name;
    std::vector<std::filesystem::path> files;  // in name order: the directory's order is not fixed
    if (std::filesystem::is_directory(dir, ec))
      for (const auto& f : std::filesystem::directory_iterator(dir, ec))
        if (f.is_regular_file(ec)) files.push_back(f.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) pool.push_back(Slurp(f));
    if (pool.empty()) pool.push_back("seed-input\n");  // the self-test entry has no corpus
    const size_t samples = pool.size();

    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(o.seconds);
    uint64_t runs = 0;
    std::string input;
    g_input = &input;
    do {
      input = pool[mut.Below(pool.size())];
      if (runs > 0) mut.Mutate(&input, pool[mut.Below(pool.size())]);  // the first is as is
      ::alarm(kInputSeconds);
      e.run(reinterpret_cast<const uint8_t*>(input.data()), input.size());
      ::alarm(0);
      ++runs;
      if (runs % 8 == 0) {  // keep some mutants, so changes build on changes
        if (pool.size() < kPoolMax)
          pool.push_back(input);
        else if (samples < kPoolMax)
          pool[samples + mut.Below(kPoolMax - samples)] = input;
      }
    } while (o.inputs > 0 ? runs < o.inputs
                          : (runs % 16 != 0 || std::chrono::steady_clock::now() < deadline));
    g_input = nullptr;
    total += runs;
    std::fprintf(stderr, "fuzz-soak: %s: %llu inputs from %zu samples\n", e.name,
                 static_cast<unsigned long long>(runs), samples);
  }
  std::fprintf(stderr, "fuzz-soak: %llu inputs, no crash, no hang (seed %llu)\n",
               static_cast<unsigned long long>(total), static_cast<unsigned long long>(o.seed));
  return 0;
}
