"""The op cases of llm::cache_attention (tailor/llm/attention_op.py), llm::rope
(tailor/llm/rope_op.py), llm::rms_norm (tailor/llm/rms_norm_op.py) and llm::gated_act
(tailor/llm/gated_act_op.py), in the format of tests/ops/cases/, run by
tests/ops/test_llm_attention.py against both kernels of kernels/llm/.

Each call is attention over fresh random caches at given positions. Between them the
cases cover: query heads per kv head 1, 2, 4, 7 and 70 (more than one row set of 64);
head sizes 1, 3, 8, 24, 64, 80, 128, 256 and 1040 (too wide for the GEMM's transposed
keys); caches of 1, 7, 20 and 300 positions; no sliding window, one smaller than the
queries, one larger than the cache; a prefill from position 0 and one later in a cache
that holds earlier rows; decode at the last position; batch 1 and 2; the optimized
kernel's two paths (dot products under 8 queries, the GEMM from 8) and its chunks of
positions (a cache longer than one chunk of transposed keys, a group of heads whose
scores fill more than one chunk).

RoPE's cases rotate every dim or the first R of D (partial rotary), with halves that
fill whole vectors of 4, 8 and 16 floats or end ragged, one token (decode) or several
with a table row each, batch 1 and 2.

RMSNorm's cases normalize one row (decode) or several (prefill, batch 2), of widths
that fill whole vectors of 4, 8 and 16 floats or end ragged (odd widths, a width under
one vector, a width of 1), with the weight an input or a constant (as a model's).

The gated activation's cases run each activation on halves that fill whole vectors of
4, 8 and 16 floats or end ragged (odd, under one vector, 1 float), ranks 1 to 4, one row
(decode) or several (prefill).
"""

import random

import tailor.llm.attention_op  # noqa: F401  (defines torch.ops.llm)
import tailor.llm.gated_act_op  # noqa: F401
import tailor.llm.rms_norm_op  # noqa: F401
import tailor.llm.rope_op  # noqa: F401
from tests.ops.cases import Arg, Constant, Given, In, OpCase

OP = "llm::cache_attention.default"
ROPE = "llm::rope.default"
RMS_NORM = "llm::rms_norm.default"
GATED_ACT = "llm::gated_act.default"


def call(batch: int, heads: int, kv_heads: int, head_dim: int, positions: int, pos,
         window: int = 0, scale: float | None = None) -> tuple:
    """One call: q [batch, len(pos), heads, head_dim], caches [batch, positions, kv_heads,
    head_dim], input_pos = pos; scale 1 / sqrt(head_dim) unless given."""
    pos = tuple(pos)
    cache = (batch, positions, kv_heads, head_dim)
    return (In((batch, len(pos), heads, head_dim)), In(cache), In(cache),
            Given((len(pos),), "Long", values=pos), Arg(window),
            Arg(head_dim ** -0.5 if scale is None else scale))


def _prefill(first: int, count: int) -> range:
    return range(first, first + count)


def rope(batch: int, tokens: int, heads: int, head_dim: int, rotary: int) -> tuple:
    """One call: x [batch, tokens, heads, head_dim], cos and sin [tokens, rotary]."""
    table = In((tokens, rotary))
    return (In((batch, tokens, heads, head_dim)), table, table)


def rms_norm(shape: tuple, eps: float = 1e-5, constant: bool = False) -> tuple:
    """One call: x of `shape`, a weight of its last dim (a constant or an input), eps."""
    weight = (Constant if constant else In)((shape[-1],))
    return (In(shape), weight, Arg(eps))


def gated_act(act: str) -> OpCase:
    """The cases of one activation: h [..., 2I] for halves I whole and ragged."""
    return OpCase(GATED_ACT, ("Float",), [(In(shape), Arg(act)) for shape in (
        (1, 1, 3072),                                          # SmolLM's decode row, I = 1536
        (1, 7, 1792),                                          # a prefill of 7 rows, I = 896
        (2, 3, 128),                                           # I = 64: whole vectors of 16
        (5, 48),                                               # I = 24: 1 of 16 and 8 over
        (1, 1, 46),                                            # I = 23: odd
        (3, 14),                                               # I = 7: under one vector
        (6, 2),                                                # I = 1: one float a half
        (1, 2, 3, 2002),                                       # rank 4, I = 1001
        (26,),                                                 # rank 1, I = 13
    )], name=act)


_SHUFFLED = tuple(random.Random(3).sample(range(300), 10))

CASES = [
    OpCase(OP, ("Float",), [
        call(1, 1, 1, 1, 1, [0]),                              # decode, a cache of 1
        call(2, 2, 2, 8, 7, _prefill(0, 7)),                   # prefill from 0, dot path
        call(1, 2, 2, 64, 300, _prefill(270, 20)),             # later prefill, GEMM, 2 chunks
        call(2, 2, 2, 256, 300, [299]),                        # decode at the last position
    ], name="mha"),
    OpCase(OP, ("Float",), [
        call(2, 4, 2, 80, 300, _prefill(0, 16), window=5),     # window smaller than T
        call(1, 4, 2, 3, 7, [6], window=10),                   # window larger than S
        call(1, 4, 2, 128, 300, [297, 298, 299]),              # three queries: dot path
    ], name="gqa2"),
    OpCase(OP, ("Float",), [
        call(1, 8, 2, 8, 300, _prefill(200, 73), window=50),   # two blocks of queries
        call(2, 8, 2, 64, 300, [299], window=100),
    ], name="gqa4"),
    OpCase(OP, ("Float",), [
        call(1, 7, 1, 80, 300, [299]),
        call(2, 7, 1, 256, 300, _prefill(291, 9), window=400),  # keys in 5 chunks of 64
        call(1, 14, 2, 1, 300, _prefill(0, 12)),
        call(2, 14, 2, 3, 7, _prefill(0, 7), window=3),
    ], name="gqa7"),
    OpCase(OP, ("Float",), [
        call(1, 70, 1, 3, 300, [299]),                         # row sets of 64 and 6
        call(1, 70, 1, 8, 300, [150, 299], window=280),
    ], name="wide_group"),
    OpCase(OP, ("Float",), [
        call(1, 2, 1, 1040, 20, _prefill(5, 9), window=4),     # too wide for the key GEMM
    ], name="wide_head"),
    OpCase(OP, ("Float",), [
        call(1, 2, 1, 24, 300, _SHUFFLED),                     # positions in any order
        call(1, 2, 1, 24, 300, _SHUFFLED, window=30, scale=0.3),
        call(2, 2, 1, 24, 300, [5, 3]),
    ], name="any_order"),
    OpCase(ROPE, ("Float",), [
        rope(1, 1, 9, 64, 64),                                 # SmolLM's q in decode
        rope(1, 1, 3, 64, 64),                                 # and its k
        rope(2, 7, 2, 128, 128),                               # halves of 4 vectors of 16
        rope(1, 5, 4, 24, 24),                                 # halves of 12: ragged ends
        rope(1, 3, 2, 2, 2),                                   # one float a half
    ], name="full"),
    OpCase(ROPE, ("Float",), [
        rope(1, 1, 8, 80, 32),                                 # phi's 0.4 of 80 dims
        rope(2, 6, 3, 64, 16),
        rope(1, 2, 1, 10, 6),                                  # ragged rotation and rest
    ], name="partial"),
    OpCase(RMS_NORM, ("Float",), [
        rms_norm((1, 1, 576), constant=True),                  # SmolLM's decode row
        rms_norm((1, 7, 576), 1e-6, constant=True),            # a prefill of 7 rows
        rms_norm((2, 3, 64)),                                  # whole vectors of 16
        rms_norm((5, 96), 1e-6),                               # 6 of 16, 12 of 8
        rms_norm((4, 80)),                                     # 5 of 16: no ragged end
    ], name="whole"),
    OpCase(RMS_NORM, ("Float",), [
        rms_norm((1, 1, 23)),                                  # odd: 1 of 16 and 7 over
        rms_norm((2, 4, 37), 1e-6, constant=True),             # 2 of 16, 5 over
        rms_norm((3, 7)),                                      # under one vector
        rms_norm((6, 1)),                                      # one float a row
        rms_norm((1, 2, 3, 1001)),                             # rank 4, wide and odd
        rms_norm((13,)),                                       # rank 1: one row
    ], name="ragged"),
    gated_act("silu"),
    gated_act("gelu"),
    gated_act("gelu_tanh"),
]
