"""SentencePiece .model files in the C++ tokenizer (apps/llm/tokenizer/sentencepiece.h)
against the `sentencepiece` library.

The tests train small models with sentencepiece's own trainer on the KJV text and the
multi-script text of test_tokenizers.py: BPE and Unigram, with and without byte
fallback, identity and nmt_nfkc normalization (its precompiled charsmap read by the C++
code, as are custom rules and a denormalizer), user-defined and control symbols, and the
whitespace options (no dummy prefix, extra whitespace kept, whitespace as suffix). The
`tokenize` driver must give sp.encode's ids and sp.decode's text on every test string,
random strings and random id sequences; broken files get one clear error and never
crash the driver."""

import random
import subprocess

import pytest
import sentencepiece as spm

from tests.llm.tokenizer_kit import SPECIAL_STRINGS, STRINGS, VARIED, cpp_encode, random_text, run


def cpp_decode(binary: str, path: str, ids: list[int], *extra: str) -> str:
    """The driver's text of `ids`, given on standard input (a long text's ids do not fit
    on a command line)."""
    proc = run(binary, path, "--decode", "-", *extra, stdin=" ".join(map(str, ids)))
    assert proc.returncode == 0, proc.stderr.decode()
    return proc.stdout.decode()

# name -> trainer options (besides the corpus). Small vocabularies keep training fast;
# character_coverage < 1 leaves rare characters (CJK, emoji) unknown or to byte fallback.
MODELS = {
    "bpe": dict(model_type="bpe", vocab_size=700, normalization_rule_name="identity",
                control_symbols=["<ctrl>"]),
    "bpe_fallback": dict(model_type="bpe", vocab_size=900, normalization_rule_name="identity",
                         byte_fallback=True, split_digits=True, remove_extra_whitespaces=False,
                         allow_whitespace_only_pieces=True,
                         user_defined_symbols=["<|user|>", "LORD", "\u2581God"]),
    "bpe_nfkc": dict(model_type="bpe", vocab_size=700, normalization_rule_name="nmt_nfkc",
                     treat_whitespace_as_suffix=True),
    "unigram": dict(model_type="unigram", vocab_size=700, normalization_rule_name="identity",
                    user_defined_symbols=["<|user|>", "LORD"], control_symbols=["<ctrl>"]),
    "unigram_fallback": dict(model_type="unigram", vocab_size=900,
                             normalization_rule_name="identity", byte_fallback=True,
                             add_dummy_prefix=False, pad_id=3),
    "unigram_nfkc": dict(model_type="unigram", vocab_size=800, normalization_rule_name="nmt_nfkc",
                         byte_fallback=True, user_defined_symbols=["<|user|>"]),
    # Rules of one's own (tab-separated code points), compiled into the charsmap, and a
    # denormalizer that decoding applies.
    "unigram_rules": dict(model_type="unigram", vocab_size=600,
                          normalization_rule_tsv="{folder}/rules.tsv",
                          denormalization_rule_tsv="{folder}/derules.tsv"),
}
RULES = "41\t61\n4C 4F 52 44\t4C 6F 72 64\n"  # A -> a, LORD -> Lord
DERULES = "61 62\t41 42\n"  # ab -> AB


@pytest.fixture(scope="module")
def models(corpus, tmp_path_factory) -> dict[str, tuple[str, spm.SentencePieceProcessor]]:
    folder = tmp_path_factory.mktemp("sentencepiece")
    (folder / "rules.tsv").write_text(RULES)
    (folder / "derules.tsv").write_text(DERULES)
    out = {}
    for name, options in MODELS.items():
        options = {k: v.format(folder=folder) if isinstance(v, str) else v
                   for k, v in options.items()}
        prefix = folder / name
        spm.SentencePieceTrainer.train(sentence_iterator=iter(corpus), model_prefix=str(prefix),
                                       character_coverage=0.995, num_threads=2,
                                       minloglevel=2, **options)
        path = f"{prefix}.model"
        out[name] = (path, spm.SentencePieceProcessor(model_file=path))
    return out


def texts(corpus) -> list[str]:
    return (STRINGS + SPECIAL_STRINGS + ["\n".join(corpus[:300]), "<ctrl> <|user|>LORD God",
                                         "  <|user|>  x  ", "\u2581 \u2581\u2581x", "\ufffd",
                                         "LORDLORD<|user|><|user|>"]
            + [random_text(seed, 1500) for seed in range(2)]
            + [long_text()])


def long_text() -> str:
    """Genesis and Exodus (380 KB) in one string: long enough that Unigram's path scores
    need sentencepiece's precision (summed in float, ties break differently)."""
    return subprocess.run(["bible", "-l100000", "gen1:1-exo40:38"], capture_output=True,
                          text=True, check=True).stdout


@pytest.mark.parametrize("name", MODELS)
def test_encode_and_decode_equal_sentencepiece(tokenize, models, corpus, name):
    path, sp = models[name]
    mismatches = []
    for text in texts(corpus):
        want = sp.encode(text)
        got = cpp_encode(tokenize, path, text)
        if got != want:
            mismatches.append(("encode", text[:60], want[:20], got[:20]))
        decoded = cpp_decode(tokenize, path, want)
        if decoded != sp.decode(want):
            mismatches.append(("decode", text[:60], sp.decode(want)[:60], decoded[:60]))
    assert not mismatches, mismatches
    # The multi-script text exercises the model: merges, and unknown characters as unk
    # (one per run) or as byte pieces.
    ids = sp.encode(VARIED)
    assert len(ids) < len(VARIED)
    if name == "unigram_rules":  # the rules and the denormalizer are in effect
        assert sp.decode(sp.encode("LORD ab")) == "Lord AB"
    if MODELS[name].get("byte_fallback"):
        assert any(sp.is_byte(i) for i in ids)
    else:
        assert sp.unk_id() in ids


@pytest.mark.parametrize("name", MODELS)
def test_decode_of_random_ids_equals_sentencepiece(tokenize, models, name):
    """Any id sequence (control, unknown, byte pieces cut mid-character, pieces with
    and without ▁ first) decodes as sentencepiece decodes it."""
    path, sp = models[name]
    rng = random.Random(name)
    special = [i for i in range(sp.get_piece_size())
               if sp.is_control(i) or sp.is_unknown(i) or sp.is_byte(i)]
    for _ in range(30):
        ids = [rng.choice(special) if rng.random() < 0.3 else rng.randrange(sp.get_piece_size())
               for _ in range(rng.randrange(1, 12))]
        assert cpp_decode(tokenize, path, ids) == sp.decode(ids), ids


def varint(n: int) -> bytes:
    out = bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def read_varint(blob: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        b = blob[pos]
        value |= (b & 0x7F) << shift
        pos += 1
        shift += 7
        if b < 0x80:
            return value, pos


def with_unused_pieces(blob: bytes, every: int) -> bytes:
    """The model with every `every`-th multi-character normal piece marked UNUSED (type 5),
    rewritten with a few lines of protobuf wire format (the trainer never writes these;
    sentencepiece's vocabulary restriction does at run time)."""
    out, pos, normal = bytearray(), 0, 0
    while pos < len(blob):
        tag, start = read_varint(blob, pos)
        assert tag & 7 == 2  # ModelProto's fields are all messages
        length, body = read_varint(blob, start)
        end = body + length
        piece = blob[body:end]
        if tag >> 3 == 1 and b"\x18" not in piece[-2:]:  # a piece without a type: NORMAL
            text_length, text = read_varint(piece, 1)
            normal += 1
            if len(piece[text:text + text_length].decode()) > 1 and normal % every == 0:
                piece += b"\x18\x05"
                out += varint(tag) + varint(len(piece)) + piece
                pos = end
                continue
        out += blob[pos:end]
        pos = end
    return bytes(out)


@pytest.mark.parametrize("name", ["bpe", "unigram"])
def test_unused_pieces_equal_sentencepiece(tokenize, models, corpus, tmp_path, name):
    """BPE merges through an unused piece and undoes them at the end; Unigram never
    takes one."""
    path, _ = models[name]
    unused = tmp_path / f"{name}_unused.model"
    unused.write_bytes(with_unused_pieces(open(path, "rb").read(), every=3))
    sp = spm.SentencePieceProcessor(model_file=str(unused))
    assert sum(sp.is_unused(i) for i in range(sp.get_piece_size())) > 50
    for text in texts(corpus):
        want = sp.encode(text)
        assert cpp_encode(tokenize, str(unused), text) == want, text[:60]
        assert cpp_decode(tokenize, str(unused), want) == sp.decode(want)


@pytest.mark.parametrize("name", ["bpe", "unigram_fallback"])
def test_info_bos_eos_and_add_special(tokenize, models, name):
    path, sp = models[name]
    info = run(tokenize, path, "--info").stdout.decode()
    assert "format: sentencepiece" in info
    assert f"vocab_size: {sp.get_piece_size()}" in info
    assert f"bos_id: {sp.bos_id()}" in info and f"eos_id: {sp.eos_id()}" in info
    for text in ("In the beginning", ""):
        assert cpp_encode(tokenize, path, text, "--add-special") == sp.encode(text, add_bos=True)
    # Control pieces decode to nothing unless kept.
    ids = [sp.bos_id(), *sp.encode("And God"), sp.eos_id()]
    assert cpp_decode(tokenize, path, ids) == "And God"
    assert cpp_decode(tokenize, path, ids, "--keep-special") == "<s>And God</s>"


def test_bad_models_give_one_clear_error(tokenize, models, corpus, tmp_path):
    path, _ = models["unigram_nfkc"]
    data = open(path, "rb").read()

    def outcome(name: str, blob: bytes):
        f = tmp_path / name
        f.write_bytes(blob)
        proc = run(tokenize, str(f), "--encode", "Hello world \u00bd")
        assert proc.returncode in (0, 1), (name, proc.returncode, proc.stderr)  # never a crash
        return proc

    err = outcome("cut.model", data[:len(data) // 2]).stderr.decode()
    assert "cut.model: " in err and "runs past the end" in err
    err = outcome("varint.model", b"\x0a" + b"\xff" * 12).stderr.decode()
    assert "varint.model: not a well-formed SentencePiece model" in err and "varint" in err
    err = outcome("type.model", b"\x0a\x07\x0a\x01a\x18\x09\x10\x00").stderr.decode()
    assert "type.model: pieces[0]: type 9 is not a SentencePiece piece type" in err
    err = outcome("nounk.model", b"\x0a\x03\x0a\x01a").stderr.decode()
    assert "nounk.model: the SentencePiece model has no unknown piece" in err
    prefix = tmp_path / "word"
    spm.SentencePieceTrainer.train(sentence_iterator=iter(corpus[:500]), model_prefix=str(prefix),
                                   model_type="word", vocab_size=200, minloglevel=2)
    err = run(tokenize, f"{prefix}.model", "--encode", "x").stderr.decode()
    assert "word.model: SentencePiece model_type WORD is not supported" in err
    # Every cut and random damage either loads (then encodes) or fails with an error.
    rng = random.Random(0)
    for k in range(40):
        outcome(f"prefix{k}.model", data[:rng.randrange(1, len(data))])
        damaged = bytearray(data)
        for _ in range(8):
            damaged[rng.randrange(len(damaged))] = rng.randrange(256)
        outcome(f"damaged{k}.model", bytes(damaged))
