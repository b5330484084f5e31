#include "apps/llm/tokenizer/tokenizer_json_reader.h"

#include "apps/llm/tokenizer/bpe_entries.h"
#include "apps/llm/tokenizer/file_reader.h"
#include "apps/llm/tokenizer/json_fields.h"

namespace llm {
namespace {

Status read_model(const std::string& path, const Json& model, Bpe* bpe) {
  const std::string where = path + ": model";
  std::string type;
  Status s = string_field(model, "type", where, &type, false, "BPE");
  if (!s.is_ok()) return s;
  if (type != "BPE") {
    return Status::error(where + ": type \"" + type + "\" is not supported (only BPE)");
  }
  const Json* dropout = model.find("dropout");
  if (dropout != nullptr && dropout->is_number() && dropout->as_double() > 0) {
    return Status::error(where + ": dropout is set; a tokenizer for inference has none");
  }
  const Json* vocab = model.find("vocab");
  if (vocab == nullptr) return Status::error(where + ": \"vocab\" is missing");
  s = add_vocab(*vocab, where + ".vocab", bpe);
  if (!s.is_ok()) return s;
  Bpe::Options options;
  std::string unk;
  s = string_field(model, "unk_token", where, &unk, false);
  if (s.is_ok()) s = string_field(model, "continuing_subword_prefix", where,
                                  &options.continuing_subword_prefix, false);
  if (s.is_ok()) s = string_field(model, "end_of_word_suffix", where, &options.end_of_word_suffix,
                                  false);
  if (s.is_ok()) s = bool_field(model, "fuse_unk", where, &options.fuse_unk, false);
  if (s.is_ok()) s = bool_field(model, "byte_fallback", where, &options.byte_fallback, false);
  if (s.is_ok()) s = bool_field(model, "ignore_merges", where, &options.ignore_merges, false);
  if (!s.is_ok()) return s;
  if (!unk.empty()) {
    options.unk_id = bpe->id_of(unk);
    if (options.unk_id < 0) {
      return Status::error(where + ": unk_token \"" + unk + "\" is not in the vocabulary");
    }
  }
  bpe->set_options(options);
  // Merges: "left right" strings (older files) or ["left", "right"] pairs, in rank order.
  const Json* merges = model.find("merges");
  if (merges == nullptr || !merges->is_array()) {
    return Status::error(where + ": \"merges\" must be an array");
  }
  for (size_t i = 0; i < merges->items().size(); ++i) {
    const Json& m = merges->items()[i];
    const std::string at = where + ".merges[" + std::to_string(i) + "]";
    if (m.is_string()) {
      s = add_merge_line(m.as_string(), at, bpe);
    } else if (m.is_array() && m.items().size() == 2 && m.items()[0].is_string() &&
               m.items()[1].is_string()) {
      s = add_merge(m.items()[0].as_string(), m.items()[1].as_string(), at, bpe);
    } else {
      s = Status::error(at + ": expected \"left right\" or [\"left\", \"right\"]");
    }
    if (!s.is_ok()) return s;
  }
  return Status::ok();
}

Status read_added_tokens(const std::string& path, const Json& list, bool has_normalizer,
                         const Normalizer& normalizer, AddedTokens* added) {
  if (!list.is_array()) return Status::error(path + ": \"added_tokens\" must be an array");
  for (size_t i = 0; i < list.items().size(); ++i) {
    const Json& item = list.items()[i];
    const std::string where = path + ": added_tokens[" + std::to_string(i) + "]";
    if (!item.is_object()) return Status::error(where + ": must be an object");
    AddedToken t;
    int64_t id = 0;
    Status s = int_field(item, "id", where, &id, -1);
    if (s.is_ok() && (id < 0 || id >= (1 << 24))) s = Status::error(where + ": needs an \"id\"");
    if (s.is_ok()) s = string_field(item, "content", where, &t.content);
    if (s.is_ok() && t.content.empty()) s = Status::error(where + ": \"content\" is empty");
    if (s.is_ok()) s = bool_field(item, "single_word", where, &t.single_word, false);
    if (s.is_ok()) s = bool_field(item, "lstrip", where, &t.lstrip, false);
    if (s.is_ok()) s = bool_field(item, "rstrip", where, &t.rstrip, false);
    if (s.is_ok()) s = bool_field(item, "special", where, &t.special, false);
    if (s.is_ok()) s = bool_field(item, "normalized", where, &t.normalized, !t.special);
    if (!s.is_ok()) return s;
    t.id = static_cast<int32_t>(id);
    added->add(t, t.normalized && has_normalizer ? normalizer.normalize(t.content) : t.content);
  }
  return Status::ok();
}

// The post-processor's single-sequence template, as parts of ids around $A.
Status read_post_processor(const std::string& path, const Json& json,
                           std::vector<std::vector<int32_t>>* before,
                           std::vector<std::vector<int32_t>>* after, bool* found) {
  const std::string where = path + ": post_processor";
  std::string type;
  Status s = string_field(json, "type", where, &type);
  if (!s.is_ok()) return s;
  if (type == "ByteLevel") return Status::ok();  // changes offsets only
  if (type == "Sequence") {
    const Json* list = json.find("processors");
    if (list == nullptr || !list->is_array()) {
      return Status::error(where + ": \"processors\" must be an array");
    }
    for (const Json& p : list->items()) {
      s = read_post_processor(path, p, before, after, found);
      if (!s.is_ok() || *found) return s;
    }
    return Status::ok();
  }
  if (type == "RobertaProcessing" || type == "BertProcessing") {
    const Json* cls = json.find("cls");
    const Json* sep = json.find("sep");
    for (const Json* pair : {cls, sep}) {
      if (pair == nullptr || !pair->is_array() || pair->items().size() != 2 ||
          !pair->items()[1].is_integer()) {
        return Status::error(where + " (" + type + "): cls and sep must be [token, id]");
      }
    }
    before->push_back({static_cast<int32_t>(cls->items()[1].as_int())});
    after->push_back({static_cast<int32_t>(sep->items()[1].as_int())});
    *found = true;
    return Status::ok();
  }
  if (type != "TemplateProcessing") {
    return Status::error(where + ": type \"" + type + "\" is not supported (TemplateProcessing, "
                         "ByteLevel, RobertaProcessing, BertProcessing, Sequence)");
  }
  const Json* single = json.find("single");
  const Json* specials = json.find("special_tokens");
  if (single == nullptr || !single->is_array() || specials == nullptr || !specials->is_object()) {
    return Status::error(where + ": TemplateProcessing needs \"single\" and \"special_tokens\"");
  }
  bool seen_sequence = false;
  for (const Json& part : single->items()) {
    if (part.find("Sequence") != nullptr) {
      seen_sequence = true;
      continue;
    }
    const Json* special = part.find("SpecialToken");
    const Json* name = special != nullptr ? special->find("id") : nullptr;
    const Json* entry = name != nullptr && name->is_string() ? specials->find(name->as_string())
                                                             : nullptr;
    const Json* ids = entry != nullptr ? entry->find("ids") : nullptr;
    if (ids == nullptr || !ids->is_array()) {
      return Status::error(where + ": a part of \"single\" names no entry of \"special_tokens\"");
    }
    std::vector<int32_t> values;
    for (const Json& id : ids->items()) {
      if (!id.is_integer()) return Status::error(where + ": special token ids must be integers");
      values.push_back(static_cast<int32_t>(id.as_int()));
    }
    (seen_sequence ? after : before)->push_back(std::move(values));
  }
  *found = true;
  return Status::ok();
}

// bos_token / eos_token of tokenizer_config.json beside the file: "text" or {"content": ...}.
int32_t config_token(const Json& config, const char* key, const Tokenizer& tok) {
  const Json* v = config.find(key);
  if (v != nullptr && v->is_object()) v = v->find("content");
  return v != nullptr && v->is_string() ? tok.token_id(v->as_string()) : -1;
}

}  // namespace

Status TokenizerJsonReader::read(const std::string& path, const Json& doc, Tokenizer* out) {
  if (!doc.is_object()) return Status::error(path + ": the document must be a JSON object");
  out->format_ = Tokenizer::Format::kTokenizerJson;
  const Json* model = doc.find("model");
  if (model == nullptr || !model->is_object()) {
    return Status::error(path + ": missing \"model\" (is this a tokenizer.json?)");
  }
  Status s = read_model(path, *model, &out->bpe_);
  if (!s.is_ok()) return s;
  const Json* normalizer = doc.find("normalizer");
  if (normalizer != nullptr && !normalizer->is_null()) {
    s = out->normalizer_.parse(*normalizer, path + ": normalizer");
    if (!s.is_ok()) return s;
    out->has_normalizer_ = true;
  }
  const Json* pre = doc.find("pre_tokenizer");
  if (pre != nullptr && !pre->is_null()) {
    s = out->pre_tokenizer_.parse(*pre, path + ": pre_tokenizer");
    if (!s.is_ok()) return s;
    out->has_pre_tokenizer_ = true;
  }
  const Json* decoder = doc.find("decoder");
  if (decoder != nullptr && !decoder->is_null()) {
    s = out->decoder_.parse(*decoder, path + ": decoder");
    if (!s.is_ok()) return s;
    out->decode_mode_ = Tokenizer::DecodeMode::kDecoder;
  }
  const Json* added = doc.find("added_tokens");
  if (added != nullptr && !added->is_null()) {
    s = read_added_tokens(path, *added, out->has_normalizer_, out->normalizer_, &out->added_);
    if (!s.is_ok()) return s;
  }
  const Json* post = doc.find("post_processor");
  if (post != nullptr && !post->is_null()) {
    std::vector<std::vector<int32_t>> before, after;
    bool found = false;
    s = read_post_processor(path, *post, &before, &after, &found);
    if (!s.is_ok()) return s;
    if (found) {
      for (auto& ids : before) out->template_.push_back({false, ids});
      out->template_.push_back({true, {}});
      for (auto& ids : after) out->template_.push_back({false, ids});
      if (before.size() == 1 && before[0].size() == 1) out->bos_id_ = before[0][0];
      if (after.size() == 1 && after[0].size() == 1) out->eos_id_ = after[0][0];
    }
  }
  // tokenizer_config.json beside the file names bos and eos when it is there.
  const std::string config_path = sibling_path(path, "tokenizer_config.json");
  std::string config_text, error;
  Json config;
  if (read_whole_file(config_path, &config_text).is_ok()) {
    if (!Json::parse(config_text, &config, &error)) {
      return Status::error(config_path + ": " + error);
    }
    const int32_t bos = config_token(config, "bos_token", *out);
    const int32_t eos = config_token(config, "eos_token", *out);
    if (bos >= 0) out->bos_id_ = bos;
    if (eos >= 0) out->eos_id_ = eos;
  }
  return Status::ok();
}

}  // namespace llm
