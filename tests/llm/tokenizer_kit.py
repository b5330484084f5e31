"""What the tokenizer tests share: the text they train on and encode (KJV plus a few KB in
many scripts), the tokenizers they train with the `tokenizers` package, one of each kind
the llm app reads, and the `tokenize` driver (apps/llm/tools/tokenize.cpp) compiled with
the host target's flags. tests/llm/checkpoints.py ships these tokenizers with its
checkpoints."""

import json
import os
import random
import shutil
import subprocess

import pytest
import yaml
from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, processors, trainers

from codegen import build_layout
from tests.conftest import REPO

SOURCES = os.path.join(REPO, "apps", "llm", "tokenizer")
DRIVER = os.path.join(REPO, "apps", "llm", "tools", "tokenize.cpp")
BINARY = os.path.join(REPO, build_layout.tree("test-tokenizers"), "tokenize")

GPT2_SPLIT = (r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+")
LLAMA3_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|"
                r" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
QWEN2_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}|"
               r" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")

VARIED = """Grüße aus Köln — naïve café, façade, Ångström; ÆØÅ æøå ß ẞ.
日本語のテキストと漢字、カタカナ。中文文本：你好，世界！한국어 텍스트입니다.
Ελληνικά: Καλημέρα κόσμε. Русский текст: Привет, мир! Українська: їжак, ґанок.
עברית: שלום עולם. العربية: مرحبا بالعالم ١٢٣٤٥. हिन्दी: नमस्ते दुनिया। ไทย: สวัสดีชาวโลก
Emoji: 🙂🚀👍🏽 👨‍👩‍👧‍👦 🇫🇷 ❤️ and symbols ©®™ ∑∫√ ≤≥ ½ ¾ ⅓ ² ³ € £ ¥ ₹.
Combining: e\u0301 a\u0308 n\u0303 o\u0302\u0323 (decomposed), é ä ñ ộ (composed).
Numbers: 0 12 345 6789 1234567890 3.14159 1,000,000 -42 +7 2024-06-01 10:30pm ٣٤٥ ５６７.
Contractions: I'm you're he's she'll we've they'd don't CAN'T It'S WE'LL O'Neill 'quoted'.
Whitespace:  two  spaces,   three,\ttab,\t\ttabs, trailing   \nnew\n\nlines\r\nCRLF \u00a0nbsp\u3000ideographic.
Code: def f(x): return x**2 + 1  # comment\n    if a == b and c != d: pass
"""

STRINGS = [
    "", " ", "  ", "\n", "\t", "a", "Hello", " Hello", "Hello world", "Hello  world",
    "Hello world!", "hello   \n\n  world", "trailing space ", "  leading spaces",
    "And God said, Let there be light: and there was light.",
    "I'm sure you're right, they'll say; we've seen it, he'd know. DON'T SHOUT, I'M here.",
    "'s 't 're 've 'm 'll 'd 'S 'T 'RE", "'ſ 'K (long s and Kelvin sign)",
    "1 12 123 1234 12345 123456 1234567", "v1.2.3, 3.14, 1e-9, 0x1F, ١٢٣ ๑๒๓ ⅷ ½",
    "tab\tseparated\tvalues\t", "line1\nline2\r\nline3\rline4", "\n\n\n", " \n \n ",
    "   \t  \n  x", "mixed\u00a0nbsp and\u2009thin\u2003em\u3000spaces",
    "日本語のテキスト", "中文文本，你好！", "한국어 텍스트", "Ελληνικά κείμενα", "Привет, мир!",
    "שלום עולם", "مرحبا بالعالم", "नमस्ते दुनिया", "สวัสดีชาวโลก",
    "🙂", "🙂🚀", "👍🏽", "👨‍👩‍👧‍👦 family", "🇫🇷🇩🇪", "❤️‍🔥",
    "e\u0301", "Cafe\u0301 vs Café", "a\u0308\u0304 o\u0323\u0302", "\u1100\u1161\u11a8 Hangul jamo",
    "\u034a\u089a (a mark of Unicode 14 after an older one: tokenizers' NFC knows 9.0)",
    "ｆｕｌｌｗｉｄｔｈ ＡＢＣ １２３", "x²+y²=z²", "<html><body>&amp;</body></html>",
    "$$$ ### @@@ !!! ??? ... --- ___ *** +++",
    "def f(x):\n    return x ** 2  # square\n",
    "https://example.com/path?query=1&b=2#frag",
    "\u200b\u200c\u200d zero-width", "\ufeffBOM", "\x00\x01\x1f control", "\u0085NEL\u2028LS\u2029PS",
    VARIED,
]
SPECIAL_STRINGS = [
    "<|endoftext|>", "Hello<|endoftext|>world", "a <|endoftext|> b", "<|endoftext|><|endoftext|>",
    "<s>Hello</s>", " <s> x </s> ", "<|begin_of_text|>Hi<|end_of_text|>", "<|endoftext",
]


def kjv_text() -> str:
    if shutil.which("bible") is None:
        pytest.skip("needs the KJV text: apt-get install bible-kjv (setup.sh does)")
    out = subprocess.run(["bible", "-l100000", "gen1:1-gen20:18"], capture_output=True,
                         text=True, check=True).stdout
    return out


def training_text() -> list[str]:
    """The lines the tokenizers train on."""
    return kjv_text().splitlines() + VARIED.splitlines() * 20


def host_flags() -> list[str]:
    with open(os.path.join(REPO, "manifests", "targets", "host.yaml"), encoding="utf-8") as f:
        return yaml.safe_load(f)["cxxflags"]


def build_driver() -> str:
    """The driver, compiled with the host target's flags (again only when a source is newer)."""
    sources = sorted(os.path.join(SOURCES, n) for n in os.listdir(SOURCES)
                     if n.endswith((".cpp", ".h"))) + [DRIVER]
    newest = max(os.path.getmtime(s) for s in sources)
    if not os.path.exists(BINARY) or os.path.getmtime(BINARY) < newest:
        os.makedirs(os.path.dirname(BINARY), exist_ok=True)
        proc = subprocess.run(["g++", *host_flags(), "-Werror", "-I", REPO, "-o", BINARY,
                               *[s for s in sources if s.endswith(".cpp")]],
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
    return BINARY


def run(binary: str, path: str, *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([binary, path, *args], input=stdin.encode(), capture_output=True,
                          timeout=60)


def cpp_encode(binary: str, path: str, text: str, *extra: str) -> list[int]:
    proc = run(binary, path, "--encode", "-", *extra, stdin=text)
    assert proc.returncode == 0, proc.stderr.decode()
    return [int(t) for t in proc.stdout.decode().split()]


def cpp_decode(binary: str, path: str, ids: list[int], *extra: str) -> str:
    proc = run(binary, path, "--decode", " ".join(map(str, ids)), *extra)
    assert proc.returncode == 0, proc.stderr.decode()
    return proc.stdout.decode()


# --- the tokenizers the tests train -------------------------------------------------------

def byte_level(corpus, split: str | None, *, specials, normalizer=None, digits=False,
               ignore_merges=False, bos=None) -> Tokenizer:
    tok = Tokenizer(models.BPE(ignore_merges=ignore_merges))
    if normalizer is not None:
        tok.normalizer = normalizer
    if split is None:  # ByteLevel's own regex (GPT-2's)
        steps = [pre_tokenizers.ByteLevel(add_prefix_space=False)]
    else:
        steps = [pre_tokenizers.Split(Regex(split), behavior="isolated"),
                 pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)]
    if digits:
        steps.insert(0, pre_tokenizers.Digits(individual_digits=True))
    tok.pre_tokenizer = steps[0] if len(steps) == 1 else pre_tokenizers.Sequence(steps)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=1200, special_tokens=specials, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(corpus, trainer)
    if bos is not None:
        tok.post_processor = processors.TemplateProcessing(
            single=f"{bos} $A", special_tokens=[(bos, tok.token_to_id(bos))])
    return tok


def sentencepiece_style(corpus, layout: str) -> Tokenizer:
    """BPE over ▁-words with byte fallback, saved in the tokenizer.json layout of Llama 2
    (Prepend + Replace normalizer), Mistral (Metaspace pre-tokenizer) or Gemma (Replace
    only, no leading ▁ and no Strip)."""
    tok = Tokenizer(models.BPE(unk_token="<unk>", fuse_unk=True, byte_fallback=True))
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    # limit_alphabet leaves rare characters (CJK, emoji) to byte fallback.
    trainer = trainers.BpeTrainer(vocab_size=900, special_tokens=["<unk>", "<s>", "</s>"],
                                  limit_alphabet=120, show_progress=False)
    tok.train_from_iterator(corpus, trainer)
    data = json.loads(tok.to_str())
    vocab = data["model"]["vocab"]
    for b in range(256):  # the <0xNN> tokens, ordinary vocabulary entries as in Llama's
        vocab.setdefault(f"<0x{b:02X}>", len(vocab))
    replace_space = {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}
    to_space = {"type": "Replace", "pattern": {"String": "▁"}, "content": " "}
    fallback = [{"type": "ByteFallback"}, {"type": "Fuse"}]
    if layout == "llama2":
        data["normalizer"] = {"type": "Sequence", "normalizers": [
            {"type": "Prepend", "prepend": "▁"}, replace_space]}
        data["pre_tokenizer"] = None
        data["decoder"] = {"type": "Sequence", "decoders": [
            to_space, *fallback, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]}
    elif layout == "mistral":
        data["normalizer"] = None
        data["pre_tokenizer"] = {"type": "Metaspace", "replacement": "▁",
                                 "prepend_scheme": "first", "split": False}
        data["decoder"] = {"type": "Sequence", "decoders": [
            to_space, *fallback, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]}
    else:  # gemma
        data["normalizer"] = replace_space
        data["pre_tokenizer"] = None
        data["decoder"] = {"type": "Sequence", "decoders": [to_space, *fallback]}
    s = tok.token_to_id("<s>")
    data["post_processor"] = {
        "type": "TemplateProcessing",
        "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                   {"Sequence": {"id": "A", "type_id": 0}}],
        "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
        "special_tokens": {"<s>": {"id": "<s>", "ids": [s], "tokens": ["<s>"]}}}
    return Tokenizer.from_str(json.dumps(data))



def random_text(seed: int, length: int) -> str:
    """Code points from every plane (no surrogates), mostly assigned ones, with spaces,
    digits and apostrophes between them so every branch of the split regexes is taken."""
    rng = random.Random(seed)
    pools = [(0x20, 0x7F), (0xA0, 0x2FF), (0x300, 0x36F), (0x370, 0x1FFF), (0x2000, 0x2BFF),
             (0x3000, 0x9FFF), (0xAC00, 0xD7A3), (0xE000, 0xFFFD), (0x10000, 0x1FBFF),
             (0x20000, 0x2FA1F), (0xE0000, 0xE01EF)]
    out = []
    for _ in range(length):
        r = rng.random()
        if r < 0.15:
            out.append(rng.choice([" ", "  ", "\n", "\t", " \n", "'", "'s", "1", "42"]))
        else:
            lo, hi = rng.choice(pools)
            out.append(chr(rng.randint(lo, hi)))
    return "".join(out)
