#include "runner/summary.h"

#include <stdio.h>

#include <algorithm>

#include "runner/json_string.h"

namespace tailor::runner {
namespace {

std::string json_ms(uint64_t ns) {
  char text[32];
  snprintf(text, sizeof(text), "%.6f", ns / 1e6);
  return text;
}

std::string to_json(const RunSummary& s) {
  std::string out = "{\"program\": " + json_string(s.program) +
                    ", \"method\": " + json_string(s.method) +
                    ", \"threads\": " + std::to_string(s.threads) +
                    ", \"prepacked_weights\": " + std::to_string(s.prepacked_weights) +
                    ", \"prepacked_bytes\": " + std::to_string(s.prepacked_bytes) +
                    ", \"times_ms\": [";
  for (size_t i = 0; i < s.times_ns.size(); ++i) {
    out += (i > 0 ? ", " : "") + json_ms(s.times_ns[i]);
  }
  out += "]";
  if (!s.times_ns.empty()) {
    std::vector<uint64_t> sorted = s.times_ns;
    std::sort(sorted.begin(), sorted.end());
    out += ", \"min_ms\": " + json_ms(sorted.front()) +
           ", \"median_ms\": " + json_ms(sorted[sorted.size() / 2]);
  }
  out += ", \"outputs\": [";
  for (size_t i = 0; i < s.outputs.size(); ++i) {
    const OutputSummary& o = s.outputs[i];
    out += i > 0 ? ", {\"shape\": [" : "{\"shape\": [";
    for (size_t d = 0; d < o.shape.size(); ++d) {
      out += (d > 0 ? ", " : "") + std::to_string(o.shape[d]);
    }
    out += "], \"dtype\": " + json_string(scalar_type_name(o.dtype)) + ", \"check\": " +
           (o.check < 0 ? "null" : o.check ? "true" : "false") + "}";
  }
  return out + "]}\n";
}

}  // namespace

bool write_summary(const std::string& path, const RunSummary& summary, std::string* error) {
  const std::string temporary = path + ".tmp";
  const std::string text = to_json(summary);
  FILE* f = fopen(temporary.c_str(), "wb");
  if (f == nullptr) {
    *error = "cannot create " + temporary;
    return false;
  }
  const bool written = fwrite(text.data(), 1, text.size(), f) == text.size();
  if (fclose(f) != 0 || !written || rename(temporary.c_str(), path.c_str()) != 0) {
    remove(temporary.c_str());
    *error = "cannot write " + path;
    return false;
  }
  return true;
}

}  // namespace tailor::runner
