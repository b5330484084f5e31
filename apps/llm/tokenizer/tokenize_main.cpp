// tokenize: the tokenizer library from the command line, for tests and scripts.
//
//   tokenize FILE --encode TEXT      ids of TEXT, space-separated, on one line
//   tokenize FILE --encode -         the same for standard input (text with newlines)
//   tokenize FILE --decode "1 2 3"   the text of the ids ("-": ids from standard input)
//   tokenize FILE --info             format, vocab size, bos and eos ids
// Options: --add-special (encode: add the post-processor's tokens, a SentencePiece
// model's bos), --keep-special (decode: keep special tokens), --pattern REGEX and
// --special TEXT=ID (tiktoken files).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <string>
#include <vector>

#include "apps/llm/tokenizer/tokenizer.h"

namespace {

int usage() {
  fprintf(stderr,
          "usage: tokenize FILE (--encode TEXT|- | --decode IDS|- | --info) [--add-special] "
          "[--keep-special] [--pattern REGEX] [--special TEXT=ID]...\n");
  return 2;
}

std::string read_stdin() {
  std::string text;
  char buffer[1 << 16];
  size_t n = 0;
  while ((n = fread(buffer, 1, sizeof(buffer), stdin)) > 0) text.append(buffer, n);
  return text;
}

bool parse_ids(const std::string& text, std::vector<int32_t>* ids) {
  const char* p = text.c_str();
  for (;;) {
    while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r' || *p == ',') ++p;
    if (*p == '\0') return true;
    char* end = nullptr;
    const long v = strtol(p, &end, 10);
    if (end == p || v < 0 || v > INT32_MAX) return false;
    ids->push_back(static_cast<int32_t>(v));
    p = end;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return usage();
  const std::string path = argv[1];
  std::string mode, argument;
  bool add_special = false, keep_special = false;
  llm::TiktokenOptions tiktoken;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if ((arg == "--encode" || arg == "--decode") && i + 1 < argc) {
      mode = arg;
      argument = argv[++i];
    } else if (arg == "--info") {
      mode = arg;
    } else if (arg == "--add-special") {
      add_special = true;
    } else if (arg == "--keep-special") {
      keep_special = true;
    } else if (arg == "--pattern" && i + 1 < argc) {
      tiktoken.pattern = argv[++i];
    } else if (arg == "--special" && i + 1 < argc) {
      const std::string spec = argv[++i];
      const size_t eq = spec.rfind('=');
      if (eq == std::string::npos || eq == 0) return usage();
      tiktoken.special_tokens.emplace_back(spec.substr(0, eq), atoi(spec.c_str() + eq + 1));
    } else {
      return usage();
    }
  }
  if (mode.empty()) return usage();
  llm::Tokenizer tok;
  const llm::Status s = tok.load(path, tiktoken);
  if (!s.is_ok()) {
    fprintf(stderr, "error: %s\n", s.message().c_str());
    return 1;
  }
  if (mode == "--info") {
    const llm::Tokenizer::Format f = tok.format();
    const char* format = f == llm::Tokenizer::Format::kTiktoken        ? "tiktoken"
                         : f == llm::Tokenizer::Format::kSentencePiece ? "sentencepiece"
                                                                       : "tokenizer.json";
    printf("format: %s\nvocab_size: %zu\nbos_id: %d\neos_id: %d\n", format, tok.vocab_size(),
           tok.bos_id(), tok.eos_id());
    return 0;
  }
  const std::string input = argument == "-" ? read_stdin() : argument;
  if (mode == "--encode") {
    const std::vector<int32_t> ids = tok.encode(input, add_special);
    std::string line;
    for (size_t i = 0; i < ids.size(); ++i) line += (i ? " " : "") + std::to_string(ids[i]);
    printf("%s\n", line.c_str());
    return 0;
  }
  std::vector<int32_t> ids;
  if (!parse_ids(input, &ids)) {
    fprintf(stderr, "error: --decode takes ids: non-negative integers separated by spaces\n");
    return 1;
  }
  const std::string text = tok.decode(ids, !keep_special);
  fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}
