"""Byte-level BPE of examples/nanogpt/bpe.py, which trains the demo GPT's vocabulary (the
llm app reads the files it writes with the tokenizer library: tests/llm/)."""

import json
import os

import pytest

from examples.nanogpt.bpe import (END_OF_TEXT, Tokenizer, bytes_to_unicode, pretokenize,
                                  train_bpe, write_files)
from examples.nanogpt.trained import MERGES, VOCAB
from tests.conftest import REPO

NON_ASCII = ("Grüße aus Köln — naïve café, 日本語のテキスト, ελληνικά, emoji 🙂🚀 and "
             "a tab\there, CRLF\r\nline, digits 12345 and punctuation!?…\n\n\n   indented")


def corpus() -> str:
    """The project's own docs plus text in several scripts."""
    parts = []
    for name in ("docs/internals.md", "README.md"):
        with open(os.path.join(REPO, name), encoding="utf-8") as f:
            parts.append(f.read())
    return "\n".join(parts) + NON_ASCII


@pytest.fixture(scope="module")
def small_vocab(tmp_path_factory):
    """A vocabulary trained here on the corpus: its merges cover multi-byte characters."""
    folder = tmp_path_factory.mktemp("bpe")
    text = corpus() + ("ü日本" * 50)
    write_files(train_bpe(text, 400), str(folder / "vocab.json"), str(folder / "merges.txt"))
    return str(folder / "vocab.json"), str(folder / "merges.txt")


def test_byte_alphabet_is_a_bijection_onto_printable_characters():
    table = bytes_to_unicode()
    assert sorted(table) == list(range(256))
    assert len(set(table.values())) == 256
    assert all(c.isprintable() and not c.isspace() for c in table.values())


def test_pretokenizer_rules():
    assert pretokenize(b"Hello  world\n\nfoo 42!") == \
        [b"Hello", b" ", b" world", b"\n\n", b"foo", b" 42", b"!"]
    # A UTF-8 character is never split, and non-ASCII bytes join the word.
    chunks = pretokenize(NON_ASCII.encode())
    assert b"".join(chunks) == NON_ASCII.encode()
    for chunk in chunks:
        chunk.decode("utf-8")
    assert chunks[:3] == [b"Gr\xc3\xbc\xc3\x9fe", b" aus", b" K\xc3\xb6ln"]


def test_training_is_deterministic_and_compresses():
    text = corpus()
    merges = train_bpe(text, 320)
    assert merges == train_bpe(text, 320)
    assert len(merges) == 320 - 257
    assert all(left and right for left, right in merges)


def test_reference_round_trips(small_vocab, tmp_path):
    tok = Tokenizer(*small_vocab)
    text = corpus()
    ids = tok.encode(text)
    assert tok.decode(ids) == text
    assert len(ids) < len(text.encode()) * 0.7   # merges were applied
    assert tok.vocab_size == 400
    assert tok.decode([tok.end_of_text]) == END_OF_TEXT


def test_committed_vocabulary_is_complete():
    tok = Tokenizer(VOCAB, MERGES)
    with open(VOCAB, encoding="utf-8") as f:
        assert len(json.load(f)) == tok.vocab_size == 512
    assert tok.end_of_text == 511


def test_the_apps_gpt2_split_gives_the_trained_ids():
    """The llm app reads vocab.json + merges.txt as GPT-2's tokenizer does (the
    `tokenizers` library here, which tests/llm checks the app against): on this corpus
    its ids are those bpe.py trained the model on."""
    from tokenizers import ByteLevelBPETokenizer
    gpt2 = ByteLevelBPETokenizer(VOCAB, MERGES)
    text = corpus()
    assert gpt2.encode(text).ids == Tokenizer(VOCAB, MERGES).encode(text)
