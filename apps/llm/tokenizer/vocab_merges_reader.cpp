#include "apps/llm/tokenizer/vocab_merges_reader.h"

#include "apps/llm/tokenizer/bpe_entries.h"
#include "apps/llm/tokenizer/file_reader.h"

namespace llm {
namespace {

const char kEndOfText[] = "<|endoftext|>";

// GPT-2's pre-tokenizer and decoder, as tokenizer.json writes them: parsed by the same
// code as a tokenizer.json's, so the two layouts cannot drift apart.
const char kByteLevelPreTokenizer[] =
    "{\"type\": \"ByteLevel\", \"add_prefix_space\": false, \"use_regex\": true}";
const char kByteLevelDecoder[] = "{\"type\": \"ByteLevel\"}";

Status read_merges(const std::string& path, Bpe* bpe) {
  std::string text;
  Status s = read_whole_file(path, &text);
  if (!s.is_ok()) return s;
  const std::vector<std::string> lines = split_lines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    // The version header (first line) and blank lines carry no merge.
    if (lines[i].empty() || (i == 0 && lines[i].compare(0, 9, "#version:") == 0)) continue;
    s = add_merge_line(lines[i], path + ":" + std::to_string(i + 1), bpe);
    if (!s.is_ok()) return s;
  }
  return Status::ok();
}

}  // namespace

std::string VocabMergesReader::merges_beside(const std::string& vocab_path) {
  const std::string suffix = "vocab.json";
  const size_t slash = vocab_path.rfind('/');
  const size_t name = slash == std::string::npos ? 0 : slash + 1;
  if (vocab_path.size() >= name + suffix.size() &&
      vocab_path.compare(vocab_path.size() - suffix.size(), suffix.size(), suffix) == 0) {
    return vocab_path.substr(0, vocab_path.size() - suffix.size()) + "merges.txt";
  }
  return sibling_path(vocab_path, "merges.txt");
}

bool VocabMergesReader::looks_like(const Json& doc) {
  if (!doc.is_object() || doc.members().empty()) return false;
  for (const auto& member : doc.members()) {
    if (!member.second.is_integer()) return false;
  }
  return true;
}

Status VocabMergesReader::read(const std::string& vocab_path, const Json& vocab,
                               const std::string& merges_path, Tokenizer* out) {
  out->format_ = Tokenizer::Format::kVocabMerges;
  Status s = add_vocab(vocab, vocab_path, &out->bpe_);
  if (!s.is_ok()) return s;
  out->bpe_.set_options(Bpe::Options());
  s = read_merges(merges_path, &out->bpe_);
  if (!s.is_ok()) return s;
  Json pre, decoder;
  std::string error;
  if (!Json::parse(kByteLevelPreTokenizer, &pre, &error) ||
      !Json::parse(kByteLevelDecoder, &decoder, &error)) {
    return Status::error("GPT-2's pre-tokenizer: " + error);
  }
  s = out->pre_tokenizer_.parse(pre, vocab_path + ": GPT-2's pre-tokenizer");
  if (s.is_ok()) s = out->decoder_.parse(decoder, vocab_path + ": GPT-2's decoder");
  if (!s.is_ok()) return s;
  out->has_pre_tokenizer_ = true;
  out->decode_mode_ = Tokenizer::DecodeMode::kDecoder;
  const int32_t end_of_text = out->bpe_.id_of(kEndOfText);
  if (end_of_text >= 0) {
    AddedToken t;
    t.id = end_of_text;
    t.content = kEndOfText;
    t.special = true;
    out->added_.add(t, t.content);
    out->bos_id_ = out->eos_id_ = end_of_text;
  }
  return Status::ok();
}

}  // namespace llm
