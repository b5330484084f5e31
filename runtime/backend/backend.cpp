#include "runtime/backend/backend.h"

#include "runtime/core/string_util.h"
#include "runtime/platform/format.h"

namespace tailor {

const Backend* backend_find(const char* name) {
  for (size_t i = 0; i < gen::kNumBackends; ++i) {
    if (string_equal(gen::kBackends[i]->name, name)) return gen::kBackends[i];
  }
  return nullptr;
}

void backend_list_names(char* out, size_t size) {
  if (size == 0) return;
  out[0] = '\0';
  size_t used = 0;
  for (size_t i = 0; i < gen::kNumBackends && used < size; ++i) {
    used += format_string(out + used, size - used, i == 0 ? "%s" : ", %s",
                          gen::kBackends[i]->name);
  }
  if (gen::kNumBackends == 0) format_string(out, size, "none");
}

}  // namespace tailor
