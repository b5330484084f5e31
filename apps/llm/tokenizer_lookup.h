// The tokenizer the llm app reads when it is given none: the file the build copies
// beside the program.
#pragma once

#include <string>

namespace llm {

/// The first of tokenizer.json, tokenizer.model, vocab.json (GPT-2's, with merges.txt)
/// in the folder of `program`, named <program's stem>.<name> (as a build copies them)
/// or <name>; "" with `error` naming what was looked for when there is none.
std::string find_tokenizer_beside(const std::string& program, std::string* error);

}  // namespace llm
