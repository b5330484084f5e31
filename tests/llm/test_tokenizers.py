"""The C++ tokenizers of apps/llm/tokenizer/ against the libraries they reimplement.

The tests train their own tokenizers with the `tokenizers` package on KJV text (apt
package bible-kjv) plus a few KB of text in several scripts, one of each kind the llm
app reads: byte-level BPE with GPT-2's split (as tokenizer.json and as GPT-2's
vocab.json + merges.txt), Llama 3's (a tiktoken file is derived from it and checked
against tiktoken), Qwen2's (with NFC) and SmolLM's (single digits), and SentencePiece-style
BPE with byte fallback in the layouts of Llama 2 (normalizer), Mistral (Metaspace) and
Gemma. The `tokenize` driver (apps/llm/tools/tokenize.cpp) must give the same ids and the
same decoded text on every test string, and its streaming decoder the same text, in whole
characters, token by token."""

import base64
import filecmp
import json
import os
import random
import shutil
import subprocess
import sys

import pytest
import tiktoken
from tokenizers import ByteLevelBPETokenizer, Tokenizer, normalizers

from tests.llm.tokenizer_kit import (LLAMA3_SPLIT, QWEN2_SPLIT, SOURCES, SPECIAL_STRINGS,
                                     STRINGS, VARIED, byte_level, cpp_decode, cpp_encode,
                                     random_text, run, sentencepiece_style)

KINDS = ["gpt2", "llama3", "qwen2", "smollm", "llama2", "mistral", "gemma"]


@pytest.fixture(scope="module")
def trained(corpus, tmp_path_factory) -> dict[str, tuple[str, Tokenizer]]:
    folder = tmp_path_factory.mktemp("tokenizers")
    made = {
        "gpt2": byte_level(corpus, None, specials=["<|endoftext|>"]),
        "llama3": byte_level(corpus, LLAMA3_SPLIT, ignore_merges=True,
                             specials=["<|begin_of_text|>", "<|end_of_text|>"],
                             bos="<|begin_of_text|>"),
        "qwen2": byte_level(corpus, QWEN2_SPLIT, normalizer=normalizers.NFC(),
                            specials=["<|endoftext|>", "<|im_start|>", "<|im_end|>"]),
        "smollm": byte_level(corpus, None, digits=True, specials=["<|endoftext|>"]),
    }
    for layout in ("llama2", "mistral", "gemma"):
        made[layout] = sentencepiece_style(corpus, layout)
    out = {}
    for name, tok in made.items():
        path = folder / name / "tokenizer.json"
        path.parent.mkdir()
        tok.save(str(path))
        out[name] = (str(path), Tokenizer.from_file(str(path)))
    return out


# --- tokenizer.json -----------------------------------------------------------------------

@pytest.mark.parametrize("kind", KINDS)
def test_encode_equals_tokenizers(tokenize, trained, corpus, kind):
    path, ref = trained[kind]
    texts = STRINGS + SPECIAL_STRINGS + ["\n".join(corpus[:400])]
    mismatches = []
    for text in texts:
        want = ref.encode(text, add_special_tokens=False).ids
        got = cpp_encode(tokenize, path, text)
        if got != want:
            mismatches.append((text[:60], want[:20], got[:20]))
    assert not mismatches, mismatches
    # And the multi-script text really exercises the model: merges and (for the
    # SentencePiece kinds) byte fallback both appear.
    ids = ref.encode(VARIED, add_special_tokens=False).ids
    assert len(ids) < len(VARIED.encode())
    if kind in ("llama2", "mistral", "gemma"):
        assert any(ref.id_to_token(i).startswith("<0x") for i in ids)


@pytest.mark.parametrize("kind", KINDS)
def test_encode_equals_tokenizers_on_random_code_points(tokenize, trained, kind):
    path, ref = trained[kind]
    for seed in range(4):
        text = random_text(seed, 4000)
        assert cpp_encode(tokenize, path, text) == ref.encode(text, add_special_tokens=False).ids


def test_unicode_tables_are_generated(tmp_path):
    """unicode_tables.cpp is what gen_unicode_tables.py writes (with this Python)."""
    out = tmp_path / "unicode_tables.cpp"
    subprocess.run([sys.executable, os.path.join(SOURCES, "gen_unicode_tables.py"), str(out)],
                   check=True, capture_output=True)
    assert filecmp.cmp(out, os.path.join(SOURCES, "unicode_tables.cpp"), shallow=False), \
        "run: python apps/llm/tokenizer/gen_unicode_tables.py"


@pytest.mark.parametrize("kind", KINDS)
def test_decode_equals_tokenizers_and_round_trips(tokenize, trained, kind):
    path, ref = trained[kind]
    for text in STRINGS + SPECIAL_STRINGS:
        ids = ref.encode(text, add_special_tokens=False).ids
        got = cpp_decode(tokenize, path, ids)
        assert got == ref.decode(ids), (text, ids)
        if kind in ("gpt2", "llama3", "smollm") and "<" not in text:
            assert got == text  # byte-level BPE is lossless
        kept = cpp_decode(tokenize, path, ids, "--keep-special")
        assert kept == ref.decode(ids, skip_special_tokens=False), (text, ids)
    # Single tokens of a character cut in the middle decode as tokenizers does (U+FFFD).
    for i in ref.encode("🙂🚀 日本", add_special_tokens=False).ids:
        assert cpp_decode(tokenize, path, [i]) == ref.decode([i])


@pytest.mark.parametrize("kind", KINDS)
def test_special_tokens_bos_eos_and_vocab_size(tokenize, trained, kind):
    path, ref = trained[kind]
    for text in ("Hello world", "", "In the beginning"):
        assert cpp_encode(tokenize, path, text, "--add-special") == \
            ref.encode(text, add_special_tokens=True).ids
    info = run(tokenize, path, "--info").stdout.decode()
    assert f"vocab_size: {ref.get_vocab_size(with_added_tokens=True)}" in info
    bos = {"llama3": "<|begin_of_text|>", "llama2": "<s>", "mistral": "<s>", "gemma": "<s>"}
    want = ref.token_to_id(bos[kind]) if kind in bos else -1
    assert f"bos_id: {want}" in info


def test_tokenizer_config_names_bos_and_eos(tokenize, trained, tmp_path):
    path, ref = trained["qwen2"]
    shutil.copy(path, tmp_path / "tokenizer.json")
    (tmp_path / "tokenizer_config.json").write_text(json.dumps(
        {"bos_token": None, "eos_token": {"content": "<|im_end|>"}}))
    info = run(tokenize, str(tmp_path / "tokenizer.json"), "--info").stdout.decode()
    assert f"eos_id: {ref.token_to_id('<|im_end|>')}" in info and "bos_id: -1" in info


# --- GPT-2's vocab.json + merges.txt ----------------------------------------------------

@pytest.fixture(scope="module")
def gpt2_files(corpus, tmp_path_factory):
    """A ByteLevelBPETokenizer trained here and saved in GPT-2's layout, and the reference
    for the two files: ByteLevelBPETokenizer reading them, <|endoftext|> made special as
    GPT2TokenizerFast does."""
    folder = tmp_path_factory.mktemp("gpt2_files")
    trained = ByteLevelBPETokenizer()
    trained.train_from_iterator(corpus, vocab_size=1200, special_tokens=["<|endoftext|>"],
                                show_progress=False)
    vocab, merges = trained.save_model(str(folder))
    ref = ByteLevelBPETokenizer(vocab, merges)
    ref.add_special_tokens(["<|endoftext|>"])
    return vocab, merges, ref


def test_gpt2_vocab_and_merges_equal_tokenizers(tokenize, gpt2_files, corpus, tmp_path):
    vocab, merges, ref = gpt2_files
    mismatches = []
    for text in STRINGS + SPECIAL_STRINGS + ["\n".join(corpus[:400])]:
        want = ref.encode(text).ids
        got = cpp_encode(tokenize, vocab, text)
        if got != want:
            mismatches.append((text[:60], want[:20], got[:20]))
        assert cpp_decode(tokenize, vocab, want) == ref.decode(want), text
    assert not mismatches, mismatches
    assert len(ref.encode(VARIED).ids) < len(VARIED.encode()) / 2  # merges were applied
    eot = ref.token_to_id("<|endoftext|>")
    info = run(tokenize, vocab, "--info").stdout.decode()
    assert f"vocab_size: {ref.get_vocab_size()}" in info
    assert "format: vocab.json+merges.txt" in info and f"bos_id: {eot}\neos_id: {eot}" in info
    # GPT-2's own vocab.json escapes non-ASCII as \\uXXXX: the same tokens.
    (tmp_path / "vocab.json").write_text(json.dumps(json.load(open(vocab, encoding="utf-8")),
                                                    ensure_ascii=True))
    shutil.copy(merges, tmp_path / "merges.txt")
    assert "\\u0120" in (tmp_path / "vocab.json").read_text()
    assert cpp_encode(tokenize, str(tmp_path / "vocab.json"), VARIED) == ref.encode(VARIED).ids


def test_gpt2_files_errors_name_the_file_and_line(tokenize, gpt2_files, tmp_path):
    vocab, merges, _ = gpt2_files
    shutil.copy(vocab, tmp_path / "vocab.json")
    missing = run(tokenize, str(tmp_path / "vocab.json"), "--encode", "x")
    assert missing.returncode == 1
    assert f"{tmp_path}/merges.txt: No such file" in missing.stderr.decode()
    lines = open(merges, encoding="utf-8").read().splitlines()
    for bad, message in ((["q\u0120 zz"], 'merges.txt:3: token "q\u0120" is not in the vocabulary'),
                         (["a b c"], 'merges.txt:3: expected "left right", got "a b c"')):
        (tmp_path / "merges.txt").write_text("\n".join(lines[:2] + bad) + "\n", encoding="utf-8")
        proc = run(tokenize, str(tmp_path / "vocab.json"), "--encode", "x")
        assert proc.returncode == 1 and message in proc.stderr.decode(), proc.stderr.decode()


# --- the streaming decoder ---------------------------------------------------------------

def stream_chunks(binary: str, path: str, ids: list[int], context: list[int] = ()) -> list[bytes]:
    """What the streaming decoder releases after each id, then at the end."""
    proc = run(binary, path, "--stream", " ".join(map(str, ids)),
               "--context", " ".join(map(str, context)))
    assert proc.returncode == 0, proc.stderr.decode()
    chunks = [bytes.fromhex(line) for line in proc.stdout.decode().split("\n")[:-1]]
    assert len(chunks) == len(ids) + 1
    return chunks


STREAMED = ["日本語のテキスト 🙂🚀 done", "👨‍👩‍👧‍👦 family and 👍🏽 ❤️‍🔥", "Hello world, 中文文本 龍",
            "  two  spaces\n\nand lines", VARIED]


@pytest.mark.parametrize("kind", KINDS)
def test_streaming_releases_whole_characters_that_join_to_decode(tokenize, trained, kind):
    path, ref = trained[kind]
    held = 0
    for text in STREAMED:
        ids = ref.encode(text, add_special_tokens=False).ids
        chunks = stream_chunks(tokenize, path, ids)
        for chunk in chunks:
            chunk.decode("utf-8")  # strict: never half a character
        assert b"".join(chunks).decode() == ref.decode(ids), text
        assert "\ufffd" not in b"".join(chunks).decode()
        held += sum(1 for c in chunks[:-1] if c == b"")
    # Characters of several tokens (multi-token emoji, byte fallback) were held back.
    assert held > 0


@pytest.mark.parametrize("kind", ["llama2", "mistral", "gemma"])
def test_streaming_byte_fallback_and_spaces(tokenize, trained, kind):
    path, ref = trained[kind]
    # 龍 is outside the trained alphabet: three <0xNN> tokens. Their run is held until a
    # token that is not a byte ends it (a fourth byte could still turn it into U+FFFD).
    ids = ref.encode("x 龍 x", add_special_tokens=False).ids
    tokens = [ref.id_to_token(i) for i in ids]
    at = tokens.index("<0xE9>")
    assert tokens[at:at + 3] == ["<0xE9>", "<0xBE>", "<0x8D>"]
    chunks = stream_chunks(tokenize, path, ids)
    assert chunks[at:at + 3] == [b"", b"", b""]
    assert chunks[at + 3].startswith("龍".encode())
    # The ▁ of a word is a space, dropped at the start of the text only where decode does.
    ids = ref.encode("Hello world again", add_special_tokens=False).ids
    chunks = stream_chunks(tokenize, path, ids)
    assert b"".join(chunks).decode() == ref.decode(ids)
    assert chunks[0].startswith(b" ") == ref.decode(ids[:1]).startswith(" ")
    # After a prompt, the first word of the continuation keeps its space.
    prompt = ref.encode("In the beginning", add_special_tokens=True).ids
    more = ref.encode("In the beginning God created", add_special_tokens=True).ids[len(prompt):]
    chunks = stream_chunks(tokenize, path, more, prompt)
    assert b"".join(chunks).decode() == " God created" == \
        ref.decode(prompt + more)[len(ref.decode(prompt)):]


@pytest.mark.parametrize("kind", KINDS)
def test_streaming_random_ids_join_to_decode(tokenize, trained, kind):
    """What a model on random weights samples: ids in any order, byte tokens among them. A
    byte-fallback run that ends invalid is U+FFFD whole in decode, its ASCII bytes too
    (<0x4A> <0xE3> decodes to two U+FFFD, not "J" and one), so the stream holds a run
    until it ends; every chunk stays whole characters and they join to decode."""
    path, ref = trained[kind]
    rng = random.Random(kind)
    vocab = ref.get_vocab(with_added_tokens=False)
    byte_ids = sorted(i for t, i in vocab.items() if t.startswith("<0x"))
    pool = sorted(vocab.values())
    sequences = [[vocab[t] for t in ("<0x4A>", "<0xE3>")] if byte_ids else []]
    for _ in range(24):
        sequences.append([rng.choice(byte_ids if byte_ids and rng.random() < 0.6 else pool)
                          for _ in range(12)])
    for ids in filter(None, sequences):
        chunks = stream_chunks(tokenize, path, ids)
        for chunk in chunks:
            chunk.decode("utf-8")
        assert b"".join(chunks).decode() == ref.decode(ids), ids


# --- tiktoken -----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def tiktoken_file(trained, tmp_path_factory):
    """A tiktoken file from the Llama-3-style vocabulary (ranks in id order), its special
    tokens after the ranks as in Llama 3, and the tiktoken Encoding for it."""
    _, ref = trained["llama3"]
    alphabet = {c: b for b, c in zip(range(256), bytes_to_unicode())}
    model = sorted((i, t) for t, i in ref.get_vocab(with_added_tokens=False).items()
                   if not t.startswith("<|"))
    ranks = {bytes(alphabet[c] for c in token): rank for rank, (_, token) in enumerate(model)}
    specials = {"<|begin_of_text|>": len(ranks), "<|end_of_text|>": len(ranks) + 1}
    path = tmp_path_factory.mktemp("tiktoken") / "tokenizer.model"
    path.write_text("".join(f"{base64.b64encode(b).decode()} {r}\n" for b, r in ranks.items()))
    enc = tiktoken.Encoding("test", pat_str=LLAMA3_SPLIT, mergeable_ranks=ranks,
                            special_tokens=specials)
    args = [a for name, i in specials.items() for a in ("--special", f"{name}={i}")]
    return str(path), enc, args


def bytes_to_unicode() -> list[str]:
    """GPT-2's byte alphabet, in byte order."""
    printable = [*range(ord("!"), ord("~") + 1), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    extra = iter(range(256, 512))
    return [chr(b) if b in printable else chr(next(extra)) for b in range(256)]


def test_tiktoken_encode_and_decode_equal_tiktoken(tokenize, tiktoken_file, corpus):
    path, enc, args = tiktoken_file
    mismatches = []
    for text in STRINGS + SPECIAL_STRINGS + ["\n".join(corpus[:400])]:
        want = enc.encode(text, allowed_special="all")
        got = cpp_encode(tokenize, path, text, *args)
        if got != want:
            mismatches.append((text[:60], want[:20], got[:20]))
        # tiktoken keeps special tokens in its text.
        assert cpp_decode(tokenize, path, want, "--keep-special", *args) == enc.decode(want)
    assert not mismatches, mismatches
    info = run(tokenize, path, "--info", *args).stdout.decode()
    assert "format: tiktoken" in info and f"bos_id: {enc.n_vocab - 2}" in info
    # Llama 3's regex is the default; another can be given.
    assert cpp_encode(tokenize, path, "12345", *args) == enc.encode("12345")
    assert len(cpp_encode(tokenize, path, "12345", "--pattern", r"\p{N}")) == 5


# --- bad files ----------------------------------------------------------------------------

def test_bad_files_give_one_clear_error(tokenize, trained, tmp_path):
    path, _ = trained["gpt2"]
    data = json.loads(open(path, encoding="utf-8").read())

    def error_of(name: str, text: str, *args: str) -> str:
        f = tmp_path / name
        f.write_text(text)
        proc = run(tokenize, str(f), "--encode", "x", *args)
        assert proc.returncode == 1 and proc.stdout == b""
        return proc.stderr.decode()

    missing = run(tokenize, str(tmp_path / "none.json"), "--encode", "x")
    assert missing.returncode == 1 and "none.json: No such file" in missing.stderr.decode()
    assert "broken.json: byte 1" in error_of("broken.json", "{]")
    bad = json.loads(json.dumps(data))
    bad["model"]["merges"].append(["Ġzzz", "qqq"])
    err = error_of("merge.json", json.dumps(bad))
    assert "merge.json: model.merges[" in err and "\"Ġzzz\" is not in the vocabulary" in err
    bad = json.loads(json.dumps(data))
    bad["model"]["type"] = "Unigram"
    assert "type \"Unigram\" is not supported" in error_of("unigram.json", json.dumps(bad))
    bad = json.loads(json.dumps(data))
    bad["pre_tokenizer"] = {"type": "Split", "pattern": {"Regex": r"(?<=a)b"},
                            "behavior": "Isolated", "invert": False}
    err = error_of("lookbehind.json", json.dumps(bad))
    assert "lookbehind.json: pre_tokenizer (Split): regex" in err and "(?<" in err
    bad = json.loads(json.dumps(data))
    bad["normalizer"] = {"type": "NFKD"}
    assert "normalizer type \"NFKD\" is not supported" in error_of("nfkd.json", json.dumps(bad))
    assert "bad.model:2: expected 'base64-token rank'" in error_of(
        "bad.model", "IQ== 0\nnot-a-line\n")
    assert "a tiktoken file ranks all 256 bytes" in error_of("short.model", "IQ== 0\n")
