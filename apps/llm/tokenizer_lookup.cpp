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
  // A build copies a model's tokenizer as <model>.<file name>, so that the models of one
  // build folder keep theirs apart; a folder of one model may hold the plain names.
  const size_t slash = program.rfind('/');
  const std::string name = slash == std::string::npos ? program : program.substr(slash + 1);
  const size_t dot = name.rfind('.');
  const std::string stem = dot == std::string::npos ? std::string() : name.substr(0, dot);
  std::string looked_for;
  for (const std::string& prefix : {stem.empty() ? std::string() : stem + ".", std::string()}) {
    // In the order of preference: tokenizer.json says the most (normalizer, added tokens,
    // post-processor); GPT-2's pair needs both files.
    const std::string json = sibling_path(program, prefix + "tokenizer.json");
    const std::string model = sibling_path(program, prefix + "tokenizer.model");
    const std::string vocab = sibling_path(program, prefix + "vocab.json");
    for (const std::string& path : {json, model}) {
      if (is_file(path)) return path;
    }
    if (is_file(vocab) && is_file(sibling_path(program, prefix + "merges.txt"))) return vocab;
    looked_for += (looked_for.empty() ? "" : ", ") + prefix + "tokenizer.json, " + prefix +
                  "tokenizer.model, " + prefix + "vocab.json with " + prefix + "merges.txt";
    if (prefix.empty()) break;
  }
  const std::string folder = slash == std::string::npos ? "." : program.substr(0, slash);
  *error = "no tokenizer beside " + program + ": looked for " + looked_for + " in " + folder +
           "; give --tokenizer FILE";
  return std::string();
}

}  // namespace llm
