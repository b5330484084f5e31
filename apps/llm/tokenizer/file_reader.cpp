#include "apps/llm/tokenizer/file_reader.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

namespace llm {

Status read_whole_file(const std::string& path, std::string* out) {
  FILE* f = fopen(path.c_str(), "rb");
  if (f == nullptr) return Status::error(path + ": " + strerror(errno));
  out->clear();
  char buffer[1 << 16];
  size_t n = 0;
  while ((n = fread(buffer, 1, sizeof(buffer), f)) > 0) out->append(buffer, n);
  const bool failed = ferror(f) != 0;
  fclose(f);
  if (failed) return Status::error(path + ": read error");
  return Status::ok();
}

}  // namespace llm
