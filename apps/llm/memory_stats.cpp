#include "apps/llm/memory_stats.h"

#include <stdio.h>
#include <string.h>

namespace llm {

MemoryStats read_memory_stats() {
  MemoryStats stats;
  FILE* f = fopen("/proc/self/status", "r");
  if (f == nullptr) return stats;
  struct Field {
    const char* name;
    uint64_t* value;
  } fields[] = {{"VmHWM:", &stats.peak_kb},
                {"VmRSS:", &stats.resident_kb},
                {"RssFile:", &stats.file_kb},
                {"RssAnon:", &stats.anon_kb}};
  char line[256];
  int found = 0;
  while (fgets(line, sizeof line, f) != nullptr) {
    for (const Field& field : fields) {
      const size_t length = strlen(field.name);
      unsigned long long kb = 0;
      if (strncmp(line, field.name, length) == 0 && sscanf(line + length, "%llu", &kb) == 1) {
        *field.value = kb;
        ++found;
      }
    }
  }
  fclose(f);
  stats.known = found == 4;
  return stats;
}

}  // namespace llm
