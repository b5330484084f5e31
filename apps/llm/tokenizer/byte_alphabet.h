// GPT-2's byte-level alphabet: every byte stands for one printable code point, so
// byte-level vocabularies (GPT-2, Llama 3, Qwen2, SmolLM) are valid UTF-8 strings.
// Printable Latin-1 bytes stand for themselves; the others map to U+0100 and up.
#pragma once

#include <stdint.h>

#include <string>

namespace llm {

/// The code point byte `b` stands for.
uint32_t byte_to_code_point(uint8_t b);
/// The byte code point `cp` stands for, or -1 when `cp` is outside the alphabet.
int code_point_to_byte(uint32_t cp);
/// `bytes` written in the alphabet (UTF-8).
std::string bytes_to_alphabet(const std::string& bytes);
/// The bytes an alphabet string stands for; false when a character is outside it.
bool alphabet_to_bytes(const std::string& text, std::string* bytes);

}  // namespace llm
