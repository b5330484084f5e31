#include "apps/llm/tokenizer_lookup.h"

#include <sys/stat.h>

#include "apps/llm/tokenizer/file_reader.h"

namespace llm {
namespace {

bool is_file(const std::string& path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

}  // namespace

std::string find_tokenizer_beside(const std::string& program, std::string* error) {
  // In the order of preference: tokenizer.json says the most (normalizer, added tokens,
  // post-processor); GPT-2's pair needs both files.
  const std::string json = sibling_path(program, "tokenizer.json");
  const std::string model = sibling_path(program, "tokenizer.model");
  const std::string vocab = sibling_path(program, "vocab.json");
  const std::string merges = sibling_path(program, "merges.txt");
  for (const std::string& path : {json, model}) {
    if (is_file(path)) return path;
  }
  if (is_file(vocab) && is_file(merges)) return vocab;
  *error = "no tokenizer beside " + program + ": looked for " + json + ", " + model + ", " +
           vocab + " with " + merges + "; give --tokenizer FILE";
  return std::string();
}

}  // namespace llm
