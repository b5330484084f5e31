"""Byte-level BPE in the GPT-2 file format: a trainer and the reference encoder/decoder.

    python -m examples.nanogpt.bpe train CORPUS.txt --vocab-size 512 --out-dir DIR
    python -m examples.nanogpt.bpe encode --vocab DIR/vocab.json --merges DIR/merges.txt < text
    python -m examples.nanogpt.bpe decode --vocab DIR/vocab.json --merges DIR/merges.txt < ids

Files: vocab.json maps each token, written in GPT-2's byte-to-unicode alphabet, to its
id; merges.txt holds "#version: 0.2" and then one merge "left right" per line, in rank
order. Ids: the 256 single bytes (in byte-to-unicode order), then one per merge, then
<|endoftext|>.

The pre-tokenizer is defined on bytes, without Unicode tables (the llm app reads the
files with GPT-2's own split regex instead, which agrees on ASCII text without
contractions: examples/nanogpt/README.md):
  classes: letter = A-Z, a-z and every byte >= 0x80 (so a UTF-8 sequence never splits);
           digit = 0-9; space = ' ', \\t, \\n, \\v, \\f, \\r; other = everything else.
  chunks:  ' '? followed by a run of one class (letter, digit or other), or a run of
           spaces; a space run that is followed by a non-space and ends in ' ' leaves
           that last ' ' to the next chunk (GPT-2's "\\s+(?!\\S)").
Encoding a chunk starts from its bytes and repeatedly merges every occurrence (left to
right) of the adjacent pair with the lowest merge rank, until no pair has a rank.
"""

import argparse
import json
import sys
from collections import Counter, defaultdict

END_OF_TEXT = "<|endoftext|>"
_SPACES = frozenset(b" \t\n\v\f\r")


def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's reversible map from bytes to printable characters.

    Printable Latin-1 bytes stand for themselves; the others (controls, space, ...) are
    moved to 256 and up, so every token is a visible string in vocab.json.
    """
    keep = (list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAC + 1))
            + list(range(0xAE, 0xFF + 1)))
    table, extra = {}, 0
    for b in range(256):
        if b in keep:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + extra)
            extra += 1
    return table


def _byte_class(b: int) -> int:
    if b in _SPACES:
        return 0
    if b >= 0x80 or 0x41 <= b <= 0x5A or 0x61 <= b <= 0x7A:
        return 1
    if 0x30 <= b <= 0x39:
        return 2
    return 3


def pretokenize(data: bytes) -> list[bytes]:
    """Splits UTF-8 (or any) bytes into the chunks BPE merges within (module doc)."""
    chunks, i, n = [], 0, len(data)
    while i < n:
        cls = _byte_class(data[i])
        if data[i] == 0x20 and i + 1 < n and _byte_class(data[i + 1]) != 0:
            start, i = i, i + 1
            cls = _byte_class(data[i])
        elif cls != 0:
            start = i
        else:
            j = i
            while j < n and _byte_class(data[j]) == 0:
                j += 1
            if j < n and j - i > 1 and data[j - 1] == 0x20:
                j -= 1  # the last space starts the next chunk
            chunks.append(data[i:j])
            i = j
            continue
        while i < n and _byte_class(data[i]) == cls:
            i += 1
        chunks.append(data[start:i])
    return chunks


def train_bpe(text: str, vocab_size: int) -> list[tuple[bytes, bytes]]:
    """The merges, in rank order, for a vocabulary of `vocab_size` ids (256 bytes, the
    merges and <|endoftext|>). Deterministic: ties go to the pair of lowest ids."""
    if vocab_size < 257:
        raise ValueError(f"vocab_size {vocab_size} is below 257 (256 bytes + <|endoftext|>)")
    counts = Counter(pretokenize(text.encode("utf-8")))
    words = [list(chunk) for chunk in counts]            # symbols are ids
    freq = [counts[chunk] for chunk in counts]
    token_bytes = [bytes([b]) for b in range(256)]
    pairs: Counter = Counter()
    where = defaultdict(set)                             # pair -> indices of words with it
    for w, symbols in enumerate(words):
        for pair in zip(symbols, symbols[1:]):
            pairs[pair] += freq[w]
            where[pair].add(w)

    merges = []
    while len(token_bytes) < vocab_size - 1 and pairs:
        best, count = min(pairs.items(), key=lambda item: (-item[1], item[0]))
        if count < 2:
            break
        new_id = len(token_bytes)
        token_bytes.append(token_bytes[best[0]] + token_bytes[best[1]])
        merges.append((token_bytes[best[0]], token_bytes[best[1]]))
        for w in sorted(where.pop(best)):
            old = words[w]
            for pair in zip(old, old[1:]):
                pairs[pair] -= freq[w]
                if pairs[pair] <= 0:
                    del pairs[pair]
            words[w] = _merge(old, best, new_id)
            for pair in zip(words[w], words[w][1:]):
                pairs[pair] += freq[w]
                where[pair].add(w)
        pairs.pop(best, None)
    return merges


def _merge(symbols: list[int], pair: tuple[int, int], new_id: int) -> list[int]:
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
            out.append(new_id)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out


def write_files(merges: list[tuple[bytes, bytes]], vocab_path: str, merges_path: str) -> None:
    """Writes vocab.json and merges.txt for `merges` (ids as in the module doc)."""
    to_char = bytes_to_unicode()

    def show(token: bytes) -> str:
        return "".join(to_char[b] for b in token)

    vocab = {show(bytes([b])): i for i, b in enumerate(sorted(range(256),
                                                                key=lambda b: ord(to_char[b])))}
    for left, right in merges:
        vocab[show(left + right)] = len(vocab)
    vocab[END_OF_TEXT] = len(vocab)
    with open(vocab_path, "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False, indent=0)
        f.write("\n")
    with open(merges_path, "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n")
        for left, right in merges:
            f.write(f"{show(left)} {show(right)}\n")


class Tokenizer:
    """Encoder/decoder for a vocab.json + merges.txt pair (GPT-2's or ours)."""

    def __init__(self, vocab_path: str, merges_path: str):
        to_byte = {c: b for b, c in bytes_to_unicode().items()}

        def raw(token: str):
            """The bytes a vocab.json token stands for; None outside the alphabet."""
            return bytes(to_byte[c] for c in token) if all(c in to_byte for c in token) else None

        with open(vocab_path, encoding="utf-8") as f:
            vocab = json.load(f)
        self.end_of_text = vocab.get(END_OF_TEXT)
        self.id_to_bytes: dict[int, bytes] = {}
        self.bytes_to_id: dict[bytes, int] = {}
        for token, i in vocab.items():
            data = token.encode("utf-8") if token == END_OF_TEXT else raw(token)
            if data is None:
                raise ValueError(f"{vocab_path}: token {token!r} has a character outside "
                                 "the byte-to-unicode alphabet")
            self.id_to_bytes[i] = data
            if token != END_OF_TEXT:
                self.bytes_to_id[data] = i
        missing = [b for b in range(256) if bytes([b]) not in self.bytes_to_id]
        if missing:
            raise ValueError(f"{vocab_path}: no token for byte {missing[0]:#04x}; a byte-level "
                             "vocabulary has all 256")
        self.ranks: dict[tuple[int, int], tuple[int, int]] = {}   # pair -> (rank, merged id)
        with open(merges_path, encoding="utf-8") as f:
            lines = [line.rstrip("\r\n") for line in f]
        for number, line in enumerate(lines, 1):
            if not line or (number == 1 and line.startswith("#version")):
                continue
            parts = line.split(" ")
            if len(parts) != 2:
                raise ValueError(f"{merges_path}:{number}: expected 'left right', got {line!r}")
            ids = [self.bytes_to_id.get(raw(t)) for t in (parts[0], parts[1], parts[0] + parts[1])]
            if None in ids:
                raise ValueError(f"{merges_path}:{number}: merge {line!r} uses a token that "
                                 f"is not in {vocab_path}")
            self.ranks.setdefault((ids[0], ids[1]), (len(self.ranks), ids[2]))
        self._cache: dict[bytes, list[int]] = {}

    @property
    def vocab_size(self) -> int:
        return len(self.id_to_bytes)

    def _encode_chunk(self, chunk: bytes) -> list[int]:
        symbols = [self.bytes_to_id[bytes([b])] for b in chunk]
        while len(symbols) > 1:
            known = [p for p in zip(symbols, symbols[1:]) if p in self.ranks]
            if not known:
                break
            best = min(known, key=lambda p: self.ranks[p][0])
            symbols = _merge(symbols, best, self.ranks[best][1])
        return symbols

    def encode(self, text: str) -> list[int]:
        ids = []
        for chunk in pretokenize(text.encode("utf-8")):
            if chunk not in self._cache:
                self._cache[chunk] = self._encode_chunk(chunk)
            ids.extend(self._cache[chunk])
        return ids

    def decode_bytes(self, ids: list[int]) -> bytes:
        try:
            return b"".join(self.id_to_bytes[i] for i in ids)
        except KeyError as e:
            raise ValueError(f"token id {e.args[0]} is not in the vocabulary "
                             f"({self.vocab_size} ids)") from None

    def decode(self, ids: list[int]) -> str:
        return self.decode_bytes(ids).decode("utf-8", errors="replace")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m examples.nanogpt.bpe",
                                     description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    train = sub.add_parser("train", help="learn merges from a UTF-8 text file")
    train.add_argument("corpus")
    train.add_argument("--vocab-size", type=int, default=512)
    train.add_argument("--out-dir", required=True)
    for name in ("encode", "decode"):
        p = sub.add_parser(name, help=f"{name} stdin to stdout")
        p.add_argument("--vocab", required=True)
        p.add_argument("--merges", required=True)
    args = parser.parse_args(argv)
    if args.command == "train":
        with open(args.corpus, encoding="utf-8") as f:
            merges = train_bpe(f.read(), args.vocab_size)
        write_files(merges, f"{args.out_dir}/vocab.json", f"{args.out_dir}/merges.txt")
        print(f"{len(merges)} merges, {len(merges) + 257} ids -> {args.out_dir}")
        return 0
    tok = Tokenizer(args.vocab, args.merges)
    if args.command == "encode":
        print(" ".join(map(str, tok.encode(sys.stdin.buffer.read().decode("utf-8")))))
    else:
        sys.stdout.buffer.write(tok.decode_bytes([int(t) for t in sys.stdin.read().split()]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
