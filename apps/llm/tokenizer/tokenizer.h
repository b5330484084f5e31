// The tokenizers of the checkpoints people run, in C++ without Python or third-party
// libraries. One class reads:
//   - tokenizer.json (Hugging Face `tokenizers`): BPE with a byte-level pre-tokenizer
//     (GPT-2, Llama 3, Qwen2, SmolLM: their split regexes) and SentencePiece-style BPE
//     (Llama 2, Mistral, Gemma: the ▁ normalizer or Metaspace, byte fallback <0xNN>),
//     added and special tokens, the post-processor's bos/eos;
//   - GPT-2's vocab.json + merges.txt: byte-level BPE with GPT-2's split, <|endoftext|>
//     its special token, bos and eos (what GPT2TokenizerFast makes of the two files);
//   - tiktoken files (base64 token and rank per line), with a split regex (Llama 3's
//     by default) and special tokens given by the caller;
//   - SentencePiece .model files (BPE and Unigram models; sentencepiece.h).
// Encoding gives the ids `tokenizers` (tiktoken, sentencepiece) give; decoding follows the
// file's decoder.
#pragma once

#include <stdint.h>

#include <string>
#include <utility>
#include <vector>

#include "apps/llm/tokenizer/added_tokens.h"
#include "apps/llm/tokenizer/bpe.h"
#include "apps/llm/tokenizer/decoder.h"
#include "apps/llm/tokenizer/normalizer.h"
#include "apps/llm/tokenizer/pre_tokenizer.h"
#include "apps/llm/tokenizer/sentencepiece.h"
#include "apps/llm/tokenizer/status.h"

namespace llm {

/// Llama 3's split regex, the default for tiktoken files.
extern const char kLlama3SplitPattern[];

struct TiktokenOptions {
  std::string pattern = kLlama3SplitPattern;
  /// (content, id) of each special token; ids usually follow the file's ranks.
  std::vector<std::pair<std::string, int32_t>> special_tokens;
};

class Tokenizer final {
 public:
  enum class Format { kNone, kTokenizerJson, kVocabMerges, kTiktoken, kSentencePiece };

  /// Reads `path`: tokenizer.json (a JSON object with a "model"), GPT-2's vocab.json (a
  /// JSON object of token -> id, with merges.txt beside it), a tiktoken file (base64
  /// lines) or a SentencePiece model (a protobuf message), told apart by their content.
  /// A tiktoken file gets `tiktoken` (Llama 3's regex, no special tokens, unless given).
  Status load(const std::string& path, const TiktokenOptions& tiktoken = TiktokenOptions());
  /// Reads GPT-2's two files, wherever they are.
  Status load_vocab_merges(const std::string& vocab_path, const std::string& merges_path);

  /// Token ids of `text` (UTF-8). Special tokens written in the text are recognised;
  /// `add_special_tokens` adds what the file's post-processor adds (bos, ...). A
  /// SentencePiece model reads control pieces in the text as text and adds bos.
  std::vector<int32_t> encode(const std::string& text, bool add_special_tokens = false) const;
  /// The text of `ids`, special tokens left out when `skip_special_tokens`. Ids the
  /// vocabulary lacks are skipped, as tokenizers does.
  std::string decode(const std::vector<int32_t>& ids, bool skip_special_tokens = true) const;

  /// True when the text of `ids` may still change before its end, beyond an unfinished
  /// character: the last token decode keeps is a <0xNN> of a ByteFallback decoder, whose
  /// run becomes U+FFFD whole (its valid characters too) if the next bytes end it invalid.
  bool ends_in_open_byte_run(const std::vector<int32_t>& ids) const;

  /// -1 when the file does not say.
  int32_t bos_id() const { return bos_id_; }
  int32_t eos_id() const { return eos_id_; }
  /// One past the largest id (model and added tokens): the embedding table's rows.
  size_t vocab_size() const;
  Format format() const { return format_; }
  /// The id of a token written as text (added tokens first), or -1.
  int32_t token_id(const std::string& token) const;
  /// True when `id` is a token of the model or an added token.
  bool has_id(int64_t id) const;

 private:
  friend class TokenizerJsonReader;
  friend class TiktokenReader;
  friend class VocabMergesReader;
  enum class Post { kNone, kTemplate };
  struct TemplatePart {
    bool sequence;            // $A
    std::vector<int32_t> ids;  // a special token's ids
  };
  enum class DecodeMode { kDecoder, kJoinWithSpaces, kRawBytes };

  std::string token_text(int32_t id) const;
  /// The text decode takes for `id` into its decoder, or nullptr for an id it leaves out
  /// (not in the vocabulary, or a special token when `skip_special_tokens`).
  const std::string* kept_token(int32_t id, bool skip_special_tokens) const;

  Format format_ = Format::kNone;
  Bpe bpe_;
  SentencePiece sentencepiece_;  // kSentencePiece: encodes and decodes on its own
  AddedTokens added_;
  bool has_normalizer_ = false, has_pre_tokenizer_ = false;
  Normalizer normalizer_;
  PreTokenizer pre_tokenizer_;
  Decoder decoder_;
  DecodeMode decode_mode_ = DecodeMode::kJoinWithSpaces;
  std::vector<TemplatePart> template_;  // empty: add_special_tokens adds nothing
  int32_t bos_id_ = -1, eos_id_ = -1;
};

}  // namespace llm
