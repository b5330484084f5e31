#include "runtime/backend/backend.h"

#include <stdio.h>
#include <string.h>

namespace tailor {

const Backend* backend_find(const char* name) {
  for (size_t i = 0; i < gen::kNumBackends; ++i) {
    if (strcmp(gen::kBackends[i]->name, name) == 0) return gen::kBackends[i];
  }
  return nullptr;
}

void backend_list_names(char* out, size_t size) {
  if (size == 0) return;
  out[0] = '\0';
  size_t used = 0;
  for (size_t i = 0; i < gen::kNumBackends && used < size; ++i) {
    const int n = snprintf(out + used, size - used, i == 0 ? "%s" : ", %s",
                           gen::kBackends[i]->name);
    if (n < 0) break;
    used += static_cast<size_t>(n);
  }
  if (gen::kNumBackends == 0) snprintf(out, size, "none");
}

}  // namespace tailor
