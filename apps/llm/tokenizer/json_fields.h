// Reading typed fields of tokenizer.json objects with one message shape for every
// mistake: "<where>: <field> must be <kind>" (where names the file and the entry).
#pragma once

#include <stdint.h>

#include <string>
#include <vector>

#include "apps/llm/tokenizer/json.h"
#include "apps/llm/tokenizer/status.h"

namespace llm {

/// `*out` = the string member `key` of `object`; `fallback` when absent or null unless
/// `required`.
Status string_field(const Json& object, const char* key, const std::string& where,
                    std::string* out, bool required = true, const char* fallback = "");
Status bool_field(const Json& object, const char* key, const std::string& where, bool* out,
                  bool fallback);
Status int_field(const Json& object, const char* key, const std::string& where, int64_t* out,
                 int64_t fallback);
/// A pattern object {"String": s} or {"Regex": r}: `*is_regex` says which.
Status pattern_field(const Json& object, const char* key, const std::string& where,
                     std::string* pattern, bool* is_regex);

/// The "type" of a normalizer, pre-tokenizer or decoder object at `where`, and `*here`:
/// where its other fields' errors point ("<where> (<type>)").
Status component_type(const Json& object, const std::string& where, std::string* type,
                      std::string* here);

/// Each item of the array member `key` parsed into a new T by T::parse(item, where):
/// the Sequence of normalizers, pre-tokenizers and decoders.
template <typename T>
Status parse_each(const Json& object, const char* key, const std::string& where,
                  std::vector<T>* out) {
  const Json* list = object.find(key);
  if (list == nullptr || !list->is_array()) {
    return Status::error(where + ": \"" + key + "\" must be an array");
  }
  for (size_t i = 0; i < list->items().size(); ++i) {
    out->emplace_back();
    Status s = out->back().parse(list->items()[i],
                                 where + "." + key + "[" + std::to_string(i) + "]");
    if (!s.is_ok()) return s;
  }
  return Status::ok();
}

}  // namespace llm
