"""Greedy sampling's vector argmax (apps/llm/argmax.h) against numpy, through a C++ probe
that runs its body at every vector width this CPU has (4, 8 and 16 floats): the first
index of the largest score, as the scalar loop it replaced (`if (s[i] > best)` from
s[0]) defines it, on lengths around the vector and chain boundaries, ties, NaN and
infinities."""

import numpy as np

from tests.cxx_probe import run_probe

_PROBE = r"""
#include <stdio.h>
#include <stdlib.h>
#include <vector>
#include "apps/llm/argmax.h"

// Reads lines "N s0 ... sN-1" (strtof's spelling: hex floats, nan, inf); prints for each
// the argmax at each vector width the CPU has, space-separated.
int main() {
  namespace opt = tailor::optimized;
  size_t n;
  char word[64];
  while (scanf("%zu", &n) == 1) {
    std::vector<float> s(n);
    for (size_t i = 0; i < n; ++i) {
      if (scanf("%63s", word) != 1) return 1;
      s[i] = strtof(word, nullptr);
    }
    size_t got = 0;
    opt::vec_run_baseline<llm::ArgmaxBody>(s.data(), n, &got);
    printf("%zu", got);
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
      opt::vec_run_avx2<llm::ArgmaxBody>(s.data(), n, &got);
      printf(" %zu", got);
    }
    if (__builtin_cpu_supports("avx512f")) {
      opt::vec_run_avx512<llm::ArgmaxBody>(s.data(), n, &got);
      printf(" %zu", got);
    }
#endif
    printf("\n");
  }
  return 0;
}
"""


def expected(scores: np.ndarray) -> int:
    """The scalar loop's answer: a NaN s[0] stays; other NaNs never win; else numpy's
    first index of the maximum."""
    if np.isnan(scores[0]):
        return 0
    return int(np.argmax(np.where(np.isnan(scores), -np.inf, scores)))


def _spell(x) -> str:
    x = float(x)
    return repr(x) if not np.isfinite(x) else x.hex()


def _cases() -> list:
    rng = np.random.default_rng(5)
    cases = []
    # Lengths around 4, 8, 16 lanes and 4 chains of them (64 floats at AVX-512), and two
    # vocabularies (SmolLM's and Qwen2.5's).
    for n in (1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129,
              1000, 49152, 151936):
        cases.append(rng.standard_normal(n).astype(np.float32) * 10)
    # Ties: the maximum at several places (first in another chain or lane than later
    # ones, in the ragged tail), and a plateau of equal scores.
    for n, places in ((100, [70, 3, 99]), (100, [97, 98]), (64, [63, 1]), (49152, [49151, 8, 17]),
                      (130, [129, 128]), (77, [0, 5])):
        s = rng.standard_normal(n).astype(np.float32)
        s[places] = 5.0
        cases.append(s)
    cases.append(np.full(70, 2.5, np.float32))
    # Signed zeros are equal: the first of them wins.
    s = np.full(40, -1.0, np.float32)
    s[[9, 3, 33]] = [0.0, -0.0, 0.0]
    cases.append(s)
    # Infinities: +inf wins at its first place; all -inf gives 0.
    s = rng.standard_normal(90).astype(np.float32)
    s[[50, 20, 85]] = np.inf
    cases.append(s)
    cases.append(np.full(33, -np.inf, np.float32))
    # NaN: in s[0] it stays the answer; anywhere else (before, at or after the maximum,
    # everywhere but one place) it never wins.
    for n, nans in ((100, [0, 50]), (100, [10, 11, 80]), (3, [1]), (200, list(range(1, 200)))):
        s = rng.standard_normal(n).astype(np.float32)
        s[nans] = np.nan
        cases.append(s)
    cases.append(np.full(50, np.nan, np.float32))
    return cases


def test_argmax_matches_numpy_at_every_vector_width(tmp_path):
    cases = _cases()
    text = "".join(f"{len(s)} {' '.join(_spell(x) for x in s)}\n" for s in cases)
    lines = run_probe(tmp_path, _PROBE, text).splitlines()
    assert len(lines) == len(cases)
    widths = {len(line.split()) for line in lines}
    assert len(widths) == 1, widths
    for s, line in zip(cases, lines):
        want = expected(s)
        assert [int(w) for w in line.split()] == [want] * len(line.split()), (len(s), want, line)
