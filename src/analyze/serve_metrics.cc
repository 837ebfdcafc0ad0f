#include "analyze/serve_metrics.h"

#include <algorithm>
#include <cstdio>

#include "model/fact.h"
#include "model/visit.h"

namespace dossier {
namespace {

constexpr std::string_view kSingleStream = "single_stream_tokens_per_s";

// Walks a ServeRun, calling f(name, value-or-nullopt) for every numeric field.
template <class F>
class NumberWalker {
 public:
  NumberWalker(std::string prefix, F& f) : prefix_(std::move(prefix)), f_(f) {}
  template <class T>
  void operator()(const char* key, T& v) {
    std::string name = prefix_ + key;
    if constexpr (std::is_same_v<T, double> || std::is_same_v<T, int64_t>) {
      f_(name, std::optional<double>(static_cast<double>(v)));
    } else if constexpr (std::is_same_v<T, Fact<double>> || std::is_same_v<T, Fact<int64_t>>) {
      f_(name, v.known() ? std::optional<double>(static_cast<double>(*v)) : std::nullopt);
    } else if constexpr (Visitable<T>) {
      NumberWalker sub(name + ".", f_);
      v.visit(sub);
    }
  }

 private:
  std::string prefix_;
  F& f_;
};

template <class F>
void WalkNumbers(const ServeRun& run, F f) {
  NumberWalker<F> w("", f);
  VisitConst(run, w);
}

std::string Num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

const std::vector<std::string>& ServeMetricNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out{std::string(kSingleStream)};
    WalkNumbers(ServeRun{}, [&](const std::string& n, std::optional<double>) {
      // Counts and settings are not targets.
      if (n == "concurrency" || n == "request_rate" || n == "completed" || n == "failed" ||
          n == "input_tokens" || n == "output_tokens")
        return;
      out.push_back(n);
    });
    return out;
  }();
  return names;
}

bool IsServeMetric(std::string_view name) {
  const auto& n = ServeMetricNames();
  return std::find(n.begin(), n.end(), name) != n.end();
}

std::optional<double> ServeMetric(const ServeRun& run, std::string_view name) {
  if (name == kSingleStream) name = "output_tokens_per_s";
  if (!run.Knows(name)) return std::nullopt;  // a plain field's 0 there is not a value
  std::optional<double> out;
  WalkNumbers(run, [&](const std::string& n, std::optional<double> v) {
    if (n == name) out = v;
  });
  return out;
}

std::string TargetText(const NoteTarget& t) {
  std::string s = t.metric + " " + t.op + " " + Num(t.value);
  if (t.concurrency > 0) s += " at concurrency " + std::to_string(t.concurrency);
  return s;
}

bool TargetMet(const NoteTarget& t, double v) {
  if (t.op == ">=") return v >= t.value;
  if (t.op == ">") return v > t.value;
  if (t.op == "<=") return v <= t.value;
  if (t.op == "<") return v < t.value;
  return false;
}

std::optional<MeasuredValue> LatestForTarget(const std::vector<ServeMeasurement>& ms,
                                             const NoteTarget& t) {
  int64_t want = t.concurrency;
  if (t.metric == kSingleStream) want = 1;
  bool higher_better = t.op == ">=" || t.op == ">";
  for (auto m = ms.rbegin(); m != ms.rend(); ++m) {
    std::optional<MeasuredValue> best;
    for (const auto& run : m->runs) {
      if (want > 0 && !(run.concurrency.known() && *run.concurrency == want)) continue;
      // A run in which no request completed measured nothing: its zeros are not values.
      if (!run.MeasuredSomething()) continue;
      auto v = ServeMetric(run, t.metric);
      if (!v) continue;
      if (!best || (higher_better ? *v > best->value : *v < best->value))
        best = MeasuredValue{*v, &*m, &run};
    }
    if (best) return best;
  }
  return std::nullopt;
}

}  // namespace dossier
