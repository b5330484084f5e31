#include "apps/llm/tokenizer/file_reader.h"

#include <errno.h>
#include <string.h>

namespace llm {

Status read_stream(FILE* stream, const std::string& name, std::string* out) {
  out->clear();
  char buffer[1 << 16];
  size_t n = 0;
  while ((n = fread(buffer, 1, sizeof(buffer), stream)) > 0) out->append(buffer, n);
  if (ferror(stream) != 0) return Status::error(name + ": read error");
  return Status::ok();
}

Status read_whole_file(const std::string& path, std::string* out) {
  FILE* f = fopen(path.c_str(), "rb");
  if (f == nullptr) return Status::error(path + ": " + strerror(errno));
  Status s = read_stream(f, path, out);
  fclose(f);
  return s;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    if (!lines.back().empty() && lines.back().back() == '\r') lines.back().pop_back();
    start = end + 1;
  }
  return lines;
}

std::string sibling_path(const std::string& path, const std::string& name) {
  const size_t slash = path.rfind('/');
  return (slash == std::string::npos ? std::string() : path.substr(0, slash + 1)) + name;
}

}  // namespace llm
