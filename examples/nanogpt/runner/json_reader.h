// A reader for the one JSON shape the tokenizer needs: an object of string -> integer
// (GPT-2's vocab.json). Strings may hold raw UTF-8 and every JSON escape, \uXXXX
// surrogate pairs included.
#pragma once

#include <stdint.h>

#include <string>
#include <utility>
#include <vector>

namespace nanogpt {

/// Parses `text` as {"key": integer, ...} into `entries` (keys as UTF-8, in file order).
/// Returns false with `error` set to "byte N: what was expected" on anything else.
bool parse_string_to_int_object(const std::string& text,
                                std::vector<std::pair<std::string, int64_t>>* entries,
                                std::string* error);

}  // namespace nanogpt
