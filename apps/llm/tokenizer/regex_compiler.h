// The pattern compiler of Regex (regex.h): parses the pattern into a tree, then emits
// the backtracking program Regex::find runs. Apart so the matcher reads on its own.
#pragma once

#include <string>

#include "apps/llm/tokenizer/regex.h"

namespace llm {

/// Fills `regex`'s program and classes from `pattern` (UTF-8); false with `error`
/// saying what and where.
bool compile_regex(Regex* regex, const std::string& pattern, std::string* error);

}  // namespace llm
