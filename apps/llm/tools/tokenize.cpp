// tokenize: the tokenizer library from the command line, for tests and scripts (the llm
// app's --encode/--decode cover what a user needs; this driver reaches every option).
//
//   tokenize FILE --encode TEXT      ids of TEXT, space-separated, on one line
//   tokenize FILE --encode -         the same for standard input (text with newlines)
//   tokenize FILE --decode "1 2 3"   the text of the ids ("-": ids from standard input)
//   tokenize FILE --stream "1 2 3"   what the streaming decoder releases after each id:
//                                    one line per id, its bytes in hex (then a last line
//                                    for what the end of the stream releases);
//                                    --context IDS: after these ids (a prompt)
//   tokenize FILE --info             format, vocab size, bos and eos ids
// Options: --add-special (encode: add the post-processor's tokens, a SentencePiece
// model's bos), --keep-special (decode: keep special tokens), --pattern REGEX and
// --special TEXT=ID (tiktoken files).
#include <stdio.h>
#include <stdlib.h>

#include <string>
#include <vector>

#include "apps/llm/tokenizer/file_reader.h"
#include "apps/llm/tokenizer/id_text.h"
#include "apps/llm/tokenizer/stream_decoder.h"
#include "apps/llm/tokenizer/tokenizer.h"

namespace {

int usage() {
  fprintf(stderr,
          "usage: tokenize FILE (--encode TEXT|- | --decode IDS|- | --stream IDS [--context IDS] "
          "| --info) "
          "[--add-special] [--keep-special] [--pattern REGEX] [--special TEXT=ID]...\n");
  return 2;
}

const char* format_name(llm::Tokenizer::Format format) {
  switch (format) {
    case llm::Tokenizer::Format::kTiktoken: return "tiktoken";
    case llm::Tokenizer::Format::kVocabMerges: return "vocab.json+merges.txt";
    case llm::Tokenizer::Format::kSentencePiece: return "sentencepiece";
    default: return "tokenizer.json";
  }
}

void print_hex_line(const std::string& bytes) {
  for (unsigned char c : bytes) printf("%02x", c);
  printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return usage();
  const std::string path = argv[1];
  std::string mode, argument, context;
  bool add_special = false, keep_special = false;
  llm::TiktokenOptions tiktoken;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if ((arg == "--encode" || arg == "--decode" || arg == "--stream") && i + 1 < argc) {
      mode = arg;
      argument = argv[++i];
    } else if (arg == "--context" && i + 1 < argc) {
      context = argv[++i];
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
  llm::Status s = tok.load(path, tiktoken);
  if (!s.is_ok()) {
    fprintf(stderr, "error: %s\n", s.message().c_str());
    return 1;
  }
  if (mode == "--info") {
    printf("format: %s\nvocab_size: %zu\nbos_id: %d\neos_id: %d\n", format_name(tok.format()),
           tok.vocab_size(), tok.bos_id(), tok.eos_id());
    return 0;
  }
  std::string input = argument;
  if (argument == "-") s = llm::read_stream(stdin, "standard input", &input);
  if (!s.is_ok()) {
    fprintf(stderr, "error: %s\n", s.message().c_str());
    return 1;
  }
  if (mode == "--encode") {
    printf("%s\n", llm::format_ids(tok.encode(input, add_special)).c_str());
    return 0;
  }
  std::vector<int32_t> ids, context_ids;
  std::string bad;
  if (!llm::parse_ids(input, &ids, &bad) || !llm::parse_ids(context, &context_ids, &bad)) {
    fprintf(stderr, "error: '%s' is not a token id\n", bad.c_str());
    return 1;
  }
  if (mode == "--stream") {
    llm::StreamDecoder stream(tok);
    stream.start(context_ids);
    for (int32_t id : ids) print_hex_line(stream.push(id));
    print_hex_line(stream.flush());
    return 0;
  }
  const std::string text = tok.decode(ids, !keep_special);
  fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}
