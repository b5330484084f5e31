#include "runtime/kernel/registry.h"

#include "runtime/core/string_util.h"

namespace tailor {
namespace {

int compare(const KernelEntry& e, const char* op, const char* key) {
  const int c = string_compare(e.op, op);
  return c != 0 ? c : string_compare(e.key, key);
}

// Index of the first row not less than (op, key).
size_t lower_bound(const char* op, const char* key) {
  size_t lo = 0;
  size_t hi = gen::kNumKernels;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (compare(gen::kKernels[mid], op, key) < 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

}  // namespace

const KernelEntry* registry_find_entry(const char* op, const char* key) {
  const size_t i = lower_bound(op, key);
  if (i < gen::kNumKernels && compare(gen::kKernels[i], op, key) == 0) {
    return &gen::kKernels[i];
  }
  return nullptr;
}

bool registry_has_operator(const char* op) {
  // "" sorts first among an operator's keys.
  const size_t i = lower_bound(op, "");
  return i < gen::kNumKernels && string_equal(gen::kKernels[i].op, op);
}

}  // namespace tailor
