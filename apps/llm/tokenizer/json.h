// A small JSON reader for tokenizer.json and tokenizer_config.json: the whole document as
// a tree of values. Strings hold UTF-8 (every escape decoded, \uXXXX surrogate pairs too);
// objects keep their members in file order.
#pragma once

#include <stdint.h>

#include <string>
#include <utility>
#include <vector>

namespace llm {

class Json final {
 public:
  enum Kind { kNull, kBool, kNumber, kString, kArray, kObject };

  /// Parses `text`; on failure returns false with `error` = "byte N: what was expected".
  static bool parse(const std::string& text, Json* out, std::string* error);

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == kNull; }
  bool is_string() const { return kind_ == kString; }
  bool is_array() const { return kind_ == kArray; }
  bool is_object() const { return kind_ == kObject; }
  bool is_number() const { return kind_ == kNumber; }
  bool is_bool() const { return kind_ == kBool; }
  /// True for a number without fraction or exponent that fits in int64.
  bool is_integer() const { return kind_ == kNumber && integral_; }

  bool as_bool() const { return bool_; }
  int64_t as_int() const { return integer_; }
  double as_double() const { return number_; }
  const std::string& as_string() const { return string_; }
  const std::vector<Json>& items() const { return items_; }
  const std::vector<std::pair<std::string, Json>>& members() const { return members_; }

  /// The member `key` of an object, or nullptr (also when this is not an object).
  const Json* find(const std::string& key) const;

  /// Name of a kind, for messages ("a string", "an object", ...).
  static const char* describe(Kind kind);

 private:
  friend class JsonParser;
  Kind kind_ = kNull;
  bool bool_ = false;
  bool integral_ = false;
  int64_t integer_ = 0;
  double number_ = 0;
  std::string string_;
  std::vector<Json> items_;
  std::vector<std::pair<std::string, Json>> members_;
};

}  // namespace llm
