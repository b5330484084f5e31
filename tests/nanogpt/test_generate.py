"""The nanogpt app end to end: generation through the built runtime against torch eager
on the same weights, sampler properties, and the errors a user can run into."""

import json
import re

import pytest
import torch

from examples.nanogpt.bpe import Tokenizer
from examples.nanogpt.trained import MERGES, VOCAB, load_trained
from tests.nanogpt.conftest import ids_line

PROMPT = "And God said"


@pytest.fixture(scope="module")
def model():
    # One thread: these are many tiny forward passes, and on a shared machine a second
    # thread mostly waits (7x slower here).
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield load_trained()
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def tokenizer():
    return Tokenizer(VOCAB, MERGES)


def window_logits(model, tokens: list[int]) -> torch.Tensor:
    """Torch eager's last-position logits for the window the app feeds."""
    window = tokens[-model.config.block_size:]
    with torch.no_grad():
        return model(torch.tensor([window]))[0, -1]


def torch_greedy(model, prompt: list[int], n: int, end_of_text: int) -> list[int]:
    tokens, out = list(prompt), []
    for _ in range(n):
        next_id = int(window_logits(model, tokens).argmax())
        out.append(next_id)
        tokens.append(next_id)
        if next_id == end_of_text:
            break
    return out


def generate(nanogpt, *args: str, prompt: str = PROMPT):
    proc = nanogpt.run("--prompt", prompt, "--print-tokens", *args)
    assert proc.returncode == 0, proc.stderr.decode()
    out = proc.stdout.decode()
    return ids_line(out, "prompt"), ids_line(out, "generated")


def torch_greedy_cached(model, prompt: list[int], n: int, end_of_text: int) -> list[int]:
    """The app's rule with a KV cache: the model sees what the cache holds; a full cache
    keeps the last half of the context, prefilled again."""
    block = model.config.block_size
    tokens, out, seen = list(prompt), [], len(prompt)
    for _ in range(n):
        with torch.no_grad():
            next_id = int(model(torch.tensor([tokens[-seen:]]))[0, -1].argmax())
        out.append(next_id)
        tokens.append(next_id)
        seen = block // 2 if seen == block else seen + 1
        if next_id == end_of_text:
            break
    return out


def test_greedy_generation_equals_torch_eager(nanogpt_nocache, model, tokenizer):
    prompt, generated = generate(nanogpt_nocache, "--greedy", "--max-tokens", "90")
    assert prompt == tokenizer.encode(PROMPT)
    # Long enough that the window slides past block_size.
    assert len(prompt) + len(generated) > model.config.block_size
    assert generated == torch_greedy(model, prompt, 90, tokenizer.end_of_text)


def test_greedy_generation_is_the_same_with_and_without_the_cache(nanogpt, nanogpt_nocache,
                                                                  model, tokenizer):
    n = model.config.block_size - len(tokenizer.encode(PROMPT))   # fills the context
    cached = generate(nanogpt, "--greedy", "--max-tokens", str(n))
    assert cached == generate(nanogpt_nocache, "--greedy", "--max-tokens", str(n))
    assert len(cached[1]) == n


def test_cached_generation_past_the_context_keeps_its_last_half(nanogpt, model, tokenizer):
    prompt, generated = generate(nanogpt, "--greedy", "--max-tokens", "100")
    assert len(prompt) + len(generated) > model.config.block_size + model.config.block_size // 2
    assert generated == torch_greedy_cached(model, prompt, 100, tokenizer.end_of_text)


def test_the_app_prints_prefill_and_decode_figures(nanogpt, nanogpt_nocache):
    for app, kind in ((nanogpt, "KV cache"), (nanogpt_nocache, "no cache")):
        proc = app.run("--prompt", PROMPT, "--greedy", "--max-tokens", "20")
        assert proc.returncode == 0, proc.stderr.decode()
        assert re.search(kind + r": load [\d.]+ ms, prefill 3 tokens at [\d.]+ tokens/s, first "
                         r"token after [\d.]+ ms, decode 19 tokens at [\d.]+ tokens/s",
                         proc.stderr.decode()), proc.stderr.decode()


def test_text_is_the_prompt_and_the_decoded_tokens(nanogpt, tokenizer):
    _, generated = generate(nanogpt, "--greedy", "--max-tokens", "30")
    proc = nanogpt.run("--prompt", PROMPT, "--greedy", "--max-tokens", "30")
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout.decode() == PROMPT + tokenizer.decode(generated) + "\n"
    stats = proc.stderr.decode()
    assert "generated 30 tokens in" in stats and "tokens/s" in stats


def test_prompt_from_stdin(nanogpt):
    from_argument = nanogpt.run("--prompt", PROMPT, "--greedy", "--max-tokens", "10")
    from_stdin = nanogpt.run("--greedy", "--max-tokens", "10", stdin=(PROMPT + "\n").encode())
    assert from_stdin.returncode == 0, from_stdin.stderr.decode()
    assert from_stdin.stdout == from_argument.stdout


def test_empty_prompt_starts_from_end_of_text(nanogpt, tokenizer):
    prompt, generated = generate(nanogpt, "--max-tokens", "5", prompt="")
    assert prompt == [tokenizer.end_of_text]
    assert 1 <= len(generated) <= 5


def test_top_k_never_picks_outside_the_top_k(nanogpt, model):
    k = 5
    prompt, generated = generate(nanogpt, "--top-k", str(k), "--temperature", "3",
                                 "--seed", "3", "--max-tokens", "40")
    tokens = list(prompt)
    for next_id in generated:
        logits = window_logits(model, tokens)
        kth = logits.topk(k).values[-1]
        assert logits[next_id] >= kth - 1e-4, (tokens, next_id)
        tokens.append(next_id)
    # At temperature 3 the sampler must not collapse to greedy.
    assert generated != torch_greedy(model, prompt, len(generated), -1)


def test_top_p_stays_in_the_nucleus(nanogpt, model):
    p = 0.6
    prompt, generated = generate(nanogpt, "--top-p", str(p), "--top-k", "0",
                                 "--temperature", "1", "--seed", "11", "--max-tokens", "40")
    tokens = list(prompt)
    for next_id in generated:
        probs = window_logits(model, tokens).softmax(-1)
        ranked = probs.sort(descending=True)
        before = ranked.values.cumsum(0) - ranked.values   # mass of the tokens ranked above
        nucleus = set(ranked.indices[before < p + 1e-4].tolist())
        assert next_id in nucleus, (tokens, next_id)
        tokens.append(next_id)


def test_repetition_penalty_follows_its_rule(nanogpt, model):
    """Greedy with a penalty: the argmax after dividing the positive (multiplying the
    negative) logits of tokens already in the window."""
    penalty = 1.8
    prompt, generated = generate(nanogpt, "--greedy", "--repetition-penalty", str(penalty),
                                 "--max-tokens", "30")
    tokens, expected = list(prompt), []
    for _ in generated:
        logits = window_logits(model, tokens).clone()
        seen = torch.tensor(sorted(set(tokens[-model.config.block_size:])))
        logits[seen] = torch.where(logits[seen] > 0, logits[seen] / penalty, logits[seen] * penalty)
        expected.append(int(logits.argmax()))
        tokens.append(expected[-1])
    assert generated == expected
    assert generated != generate(nanogpt, "--greedy", "--max-tokens", "30")[1]


def test_same_seed_same_tokens_other_seed_other_tokens(nanogpt):
    args = ("--temperature", "1.2", "--top-k", "50", "--max-tokens", "40")
    first = generate(nanogpt, *args, "--seed", "7")
    assert generate(nanogpt, *args, "--seed", "7") == first
    assert generate(nanogpt, *args, "--seed", "8") != first


def test_prompt_longer_than_the_window_is_an_error(nanogpt):
    proc = nanogpt.run("--prompt", "And the LORD spake unto Moses, saying, " * 20)
    assert proc.returncode == 1
    err = proc.stderr.decode()
    assert "takes at most 64 (its block_size)" in err and "shorten the prompt" in err


def test_vocabulary_of_another_model_is_an_error(nanogpt, tmp_path):
    with open(VOCAB, encoding="utf-8") as f:
        vocab = json.load(f)
    # Only the 256 byte tokens: the model soon samples a merged token this vocab lacks.
    bytes_only = tmp_path / "bytes_vocab.json"
    bytes_only.write_text(json.dumps({t: i for t, i in vocab.items() if i < 256}))
    (tmp_path / "empty_merges.txt").write_text("#version: 0.2\n")
    proc = nanogpt.run("--prompt", PROMPT, "--greedy", vocab=str(bytes_only),
                       merges=str(tmp_path / "empty_merges.txt"))
    assert proc.returncode == 1
    assert "which the vocabulary does not have" in proc.stderr.decode()

    # An id beyond the model's logits.
    moved = dict(vocab)
    moved["A"] = 4000
    (tmp_path / "moved.json").write_text(json.dumps(moved))
    proc = nanogpt.run("--prompt", "A", vocab=str(tmp_path / "moved.json"))
    assert proc.returncode == 1
    assert "token id 4000" in proc.stderr.decode() and "512 logits" in proc.stderr.decode()


def test_missing_files_and_bad_options(nanogpt, tmp_path):
    proc = nanogpt.run("--prompt", "x", vocab=str(tmp_path / "vocab.json"))
    assert proc.returncode == 1 and "vocab.json: No such file" in proc.stderr.decode()
    proc = nanogpt.run("--prompt", "x", merges=str(tmp_path / "merges.txt"))
    assert proc.returncode == 1 and "merges.txt: No such file" in proc.stderr.decode()
    proc = nanogpt.run("--prompt", "x", "--top-p", "1.5")
    assert proc.returncode == 2 and "--top-p" in proc.stderr.decode()
    proc = nanogpt.run("--prompt", "x", "--frobnicate", "1")
    assert proc.returncode == 2 and "unknown option --frobnicate" in proc.stderr.decode()
    proc = nanogpt.run("--prompt", "x", program=False)
    assert proc.returncode == 2 and "no PROGRAM" in proc.stderr.decode()
