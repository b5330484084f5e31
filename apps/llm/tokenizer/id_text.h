// Token ids written as text, the way the command-line tools take and print them:
// "1 2 3" (spaces, commas, tabs or newlines between).
#pragma once

#include <stdint.h>

#include <string>
#include <vector>

namespace llm {

/// Appends the ids of `text` to `ids`; false at the first word that is not an id in
/// 0..INT32_MAX (`bad` = that word).
bool parse_ids(const std::string& text, std::vector<int32_t>* ids, std::string* bad);
/// "1 2 3".
std::string format_ids(const std::vector<int32_t>& ids);

}  // namespace llm
