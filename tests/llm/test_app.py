"""The llm app end to end on the demo GPT (nanogpt, nanogpt_nocache): generation through
the built runtime against torch eager on the same weights, the sampler's rules, the text
it streams against the `tokenizers` library's decode, the tokenizer found beside the
program, the eos stop, the script modes and the errors a user can run into."""

import json
import os
import re
import shutil

import pytest
import torch
from tokenizers import ByteLevelBPETokenizer

from examples.nanogpt.trained import MERGES, VOCAB, load_trained
from tests.llm.app import LlmApp, split_ids

PROMPT = "And God said"
END_OF_TEXT = 511
NON_ASCII = ("Grüße aus Köln — naïve café, 日本語のテキスト, emoji 🙂🚀 and it's a tab\there, "
             "CRLF\r\nline, digits 12345 and punctuation!?…\n\n\n   indented")


@pytest.fixture(scope="module")
def model():
    # One thread: these are many tiny forward passes, and on a shared machine a second
    # thread mostly waits (7x slower here).
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield load_trained()
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def reference():
    """GPT-2's two files as the `tokenizers` library reads them (GPT2TokenizerFast's
    layout: byte-level BPE, <|endoftext|> special)."""
    tok = ByteLevelBPETokenizer(VOCAB, MERGES)
    tok.add_special_tokens(["<|endoftext|>"])
    return tok


def window_logits(model, tokens: list[int]) -> torch.Tensor:
    """Torch eager's last-position logits for the window the app feeds."""
    window = tokens[-model.config.block_size:]
    with torch.no_grad():
        return model(torch.tensor([window]))[0, -1]


def torch_greedy(model, prompt: list[int], n: int, end: int = END_OF_TEXT) -> list[int]:
    tokens, out = list(prompt), []
    for _ in range(n):
        next_id = int(window_logits(model, tokens).argmax())
        out.append(next_id)
        tokens.append(next_id)
        if next_id == end:
            break
    return out


def torch_greedy_cached(model, prompt: list[int], n: int) -> list[int]:
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
        if next_id == END_OF_TEXT:
            break
    return out


def generated_ids(app: LlmApp, *args: str, prompt: str = PROMPT) -> list[int]:
    return app.generate("--prompt", prompt, *args)[1]


# --- generation against torch eager --------------------------------------------------------

def test_greedy_generation_equals_torch_eager(nanogpt_nocache, model, reference):
    prompt = reference.encode(PROMPT).ids
    generated = generated_ids(nanogpt_nocache, "--greedy", "--max-tokens", "90")
    # Long enough that the window slides past block_size.
    assert len(prompt) + len(generated) > model.config.block_size
    assert generated == torch_greedy(model, prompt, 90)


def test_greedy_generation_is_the_same_with_and_without_the_cache(nanogpt, nanogpt_nocache,
                                                                  model, reference):
    n = model.config.block_size - len(reference.encode(PROMPT).ids)  # fills the context
    cached = generated_ids(nanogpt, "--greedy", "--max-tokens", str(n))
    assert cached == generated_ids(nanogpt_nocache, "--greedy", "--max-tokens", str(n))
    assert len(cached) == n


def test_cached_generation_past_the_context_keeps_its_last_half(nanogpt, model, reference):
    prompt = reference.encode(PROMPT).ids
    generated = generated_ids(nanogpt, "--greedy", "--max-tokens", "100")
    assert len(prompt) + len(generated) > model.config.block_size * 3 // 2
    assert generated == torch_greedy_cached(model, prompt, 100)


def test_prompt_ids_start_where_the_prompt_does(nanogpt, reference):
    ids = " ".join(map(str, reference.encode(PROMPT).ids))
    from_ids = nanogpt.run("--prompt-ids", ids, "--greedy", "--max-tokens", "20", "--print-ids")
    from_text = nanogpt.run("--prompt", PROMPT, "--greedy", "--max-tokens", "20", "--print-ids")
    assert from_ids.returncode == 0, from_ids.stderr.decode()
    assert from_ids.stdout == from_text.stdout


def test_empty_prompt_starts_from_the_bos_token(nanogpt, model):
    proc = nanogpt.run("--prompt", "", "--greedy", "--max-tokens", "8", "--print-ids")
    assert proc.returncode == 0, proc.stderr.decode()
    assert split_ids(proc.stdout.decode())[1] == torch_greedy(model, [END_OF_TEXT], 8)
    assert "prefill 1 tokens" in proc.stderr.decode()


# --- the sampler ---------------------------------------------------------------------------

def test_top_k_never_picks_outside_the_top_k(nanogpt, model, reference):
    k = 5
    generated = generated_ids(nanogpt, "--top-k", str(k), "--temperature", "3", "--seed", "3",
                              "--max-tokens", "40")
    tokens = reference.encode(PROMPT).ids
    prompt = list(tokens)
    for next_id in generated:
        logits = window_logits(model, tokens)
        assert logits[next_id] >= logits.topk(k).values[-1] - 1e-4, (tokens, next_id)
        tokens.append(next_id)
    # At temperature 3 the sampler must not collapse to greedy.
    assert generated != torch_greedy(model, prompt, len(generated), -1)


def test_top_p_stays_in_the_nucleus(nanogpt, model, reference):
    p = 0.6
    generated = generated_ids(nanogpt, "--top-p", str(p), "--top-k", "0", "--temperature", "1",
                              "--seed", "11", "--max-tokens", "40")
    tokens = reference.encode(PROMPT).ids
    for next_id in generated:
        probs = window_logits(model, tokens).softmax(-1)
        ranked = probs.sort(descending=True)
        before = ranked.values.cumsum(0) - ranked.values  # mass of the tokens ranked above
        assert next_id in set(ranked.indices[before < p + 1e-4].tolist()), (tokens, next_id)
        tokens.append(next_id)


def test_repetition_penalty_follows_its_rule(nanogpt, model, reference):
    """Greedy with a penalty: the argmax after dividing the positive (multiplying the
    negative) logits of tokens already in the window."""
    penalty = 1.8
    generated = generated_ids(nanogpt, "--greedy", "--repetition-penalty", str(penalty),
                              "--max-tokens", "30")
    tokens, expected = reference.encode(PROMPT).ids, []
    for _ in generated:
        logits = window_logits(model, tokens).clone()
        seen = torch.tensor(sorted(set(tokens[-model.config.block_size:])))
        logits[seen] = torch.where(logits[seen] > 0, logits[seen] / penalty, logits[seen] * penalty)
        expected.append(int(logits.argmax()))
        tokens.append(expected[-1])
    assert generated == expected
    assert generated != generated_ids(nanogpt, "--greedy", "--max-tokens", "30")


def test_same_seed_same_tokens_other_seed_other_tokens(nanogpt):
    args = ("--temperature", "1.2", "--top-k", "50", "--max-tokens", "40")
    first = generated_ids(nanogpt, *args, "--seed", "7")
    assert generated_ids(nanogpt, *args, "--seed", "7") == first
    assert generated_ids(nanogpt, *args, "--seed", "8") != first


# --- text, stats and the script modes -----------------------------------------------------

def test_text_is_the_prompt_and_the_decoded_tokens(nanogpt, reference):
    proc = nanogpt.run("--prompt", PROMPT, "--greedy", "--max-tokens", "30", "--print-ids")
    assert proc.returncode == 0, proc.stderr.decode()
    text, generated = split_ids(proc.stdout.decode())
    assert len(generated) == 30
    assert text == PROMPT + reference.decode(generated)
    # Without --print-ids: the text and a newline.
    plain = nanogpt.run("--prompt", PROMPT, "--greedy", "--max-tokens", "30")
    assert plain.stdout.decode() == text + "\n"


def test_the_app_prints_prefill_and_decode_figures(nanogpt, nanogpt_nocache):
    for app, kind in ((nanogpt, "KV cache"), (nanogpt_nocache, "no cache")):
        proc = app.run("--prompt", PROMPT, "--greedy", "--max-tokens", "20")
        assert proc.returncode == 0, proc.stderr.decode()
        err = proc.stderr.decode()
        assert re.search(kind + r": load [\d.]+ ms, prefill 3 tokens at [\d.]+ tokens/s, first "
                         r"token after [\d.]+ ms, decode 19 tokens at [\d.]+ tokens/s", err), err
        assert "prompt 3 tokens, generated 20 tokens in" in err


def test_prompt_from_stdin(nanogpt):
    from_argument = nanogpt.run("--prompt", PROMPT, "--greedy", "--max-tokens", "10")
    from_stdin = nanogpt.run("--greedy", "--max-tokens", "10", stdin=(PROMPT + "\n").encode())
    assert from_stdin.returncode == 0, from_stdin.stderr.decode()
    assert from_stdin.stdout == from_argument.stdout


def test_encode_and_decode_for_scripts(nanogpt, reference):
    proc = nanogpt.run("--encode", NON_ASCII, program=False)
    assert proc.returncode == 0, proc.stderr.decode()
    ids = reference.encode(NON_ASCII).ids
    assert proc.stdout.decode() == " ".join(map(str, ids)) + "\n"
    # No special tokens are added, but those written in the text are recognised.
    assert nanogpt.run("--encode", "a<|endoftext|>", program=False).stdout.decode().split() == \
        [str(i) for i in reference.encode("a<|endoftext|>").ids]
    assert nanogpt.run("--encode", "-", stdin=NON_ASCII.encode(), program=False).stdout == \
        proc.stdout
    decoded = nanogpt.run("--decode", " ".join(map(str, ids)), program=False)
    assert decoded.returncode == 0 and decoded.stdout.decode() == NON_ASCII
    assert nanogpt.run("--decode", "-", stdin=proc.stdout, program=False).stdout == decoded.stdout


def test_bench_times_forward_and_decode(nanogpt, nanogpt_nocache):
    for app in (nanogpt, nanogpt_nocache):
        proc = app.run("--bench", "1,16", "--decode-bench", "8", "--repeat", "3", tokenizer=None)
        assert proc.returncode == 0, proc.stderr.decode()
        lines = proc.stdout.decode().splitlines()
        assert [line.split(":")[0] for line in lines] == \
            ["forward T=1", "forward T=16", "decode context=8"]
        assert all(re.search(r"median [\d.]+ ms, min [\d.]+ ms \(3 runs\)", l) for l in lines)
    proc = nanogpt.run("--bench", "65", tokenizer=None)
    assert proc.returncode == 1 and "takes at most 64 tokens" in proc.stderr.decode()


# --- the tokenizer beside the program, and eos -------------------------------------------

def test_tokenizer_is_found_beside_the_program(nanogpt_nocache, reference, tmp_path):
    program = tmp_path / "nanogpt_nocache.pte"
    os.symlink(nanogpt_nocache.program, program)
    app = LlmApp(nanogpt_nocache.app, str(program))
    args = ("--prompt", PROMPT, "--greedy", "--max-tokens", "12")
    proc = app.run(*args, tokenizer=None)
    assert proc.returncode == 1
    err = proc.stderr.decode()
    names = [f"{p}{n}" for p in ("nanogpt_nocache.", "") for n in
             ("tokenizer.json", "tokenizer.model", "vocab.json with", "merges.txt")]
    assert all(name in err for name in names) and f"in {tmp_path}; give --tokenizer" in err, err
    # Ids in, ids out needs no tokenizer.
    ids = " ".join(map(str, reference.encode(PROMPT).ids))
    bare = app.run("--prompt-ids", ids, *args[2:], "--print-ids", tokenizer=None)
    assert bare.returncode == 0, bare.stderr.decode()
    assert "generating ids only" in bare.stderr.decode()
    want = app.run(*args, "--print-ids")
    assert split_ids(bare.stdout.decode())[1] == split_ids(want.stdout.decode())[1]
    # As a build copies them (<model>.vocab.json, <model>.merges.txt), then plain names.
    for vocab, merges in (("nanogpt_nocache.vocab.json", "nanogpt_nocache.merges.txt"),
                          ("vocab.json", "merges.txt")):
        shutil.copy(VOCAB, tmp_path / vocab)
        shutil.copy(MERGES, tmp_path / merges)
        found = app.run(*args, tokenizer=None)
        assert found.returncode == 0, found.stderr.decode()
        assert found.stdout == app.run(*args).stdout
        os.remove(tmp_path / vocab)
        os.remove(tmp_path / merges)


def test_generation_stops_at_an_eos_id(nanogpt, nanogpt_nocache, reference, tmp_path):
    """nanogpt_nocache has no get_eos_ids: the tokenizer's eos stops it (here a token of
    the text, named by tokenizer_config.json beside tokenizer.json). nanogpt's
    get_eos_ids ([511]) takes precedence over the tokenizer's."""
    text, free = nanogpt_nocache.generate("--prompt", PROMPT, "--greedy", "--max-tokens", "20")
    stop = free[6]
    reference.save(str(tmp_path / "tokenizer.json"))
    (tmp_path / "tokenizer_config.json").write_text(json.dumps(
        {"eos_token": reference.id_to_token(stop)}))
    for app in (nanogpt_nocache, nanogpt):
        os.symlink(app.program, tmp_path / os.path.basename(app.program))
    nocache = LlmApp(nanogpt_nocache.app, str(tmp_path / "nanogpt_nocache.pte"))
    proc = nocache.run("--prompt", PROMPT, "--greedy", "--max-tokens", "20", "--print-ids",
                       tokenizer=None)
    assert proc.returncode == 0, proc.stderr.decode()
    text, ids = split_ids(proc.stdout.decode())
    assert ids == free[:free.index(stop) + 1]
    assert text == PROMPT + reference.decode(ids[:-1])  # the eos token is not text
    assert f"generated {len(ids)} tokens" in proc.stderr.decode()
    assert f"(stopped at eos id {stop})" in proc.stderr.decode()
    cached = LlmApp(nanogpt.app, str(tmp_path / "nanogpt.pte"))
    assert cached.generate("--prompt", PROMPT, "--greedy", "--max-tokens", "20")[1] == free


# --- errors -------------------------------------------------------------------------------

def test_prompt_longer_than_the_context_is_an_error(nanogpt):
    proc = nanogpt.run("--prompt", "And the LORD spake unto Moses, saying, " * 20)
    assert proc.returncode == 1
    err = proc.stderr.decode()
    assert "takes at most 64 (its max_seq_len)" in err and "shorten the prompt" in err


def test_tokenizer_of_another_model_is_an_error(nanogpt, tmp_path):
    with open(VOCAB, encoding="utf-8") as f:
        vocab = json.load(f)
    # Only the 256 byte tokens: the model soon samples a merged token this vocab lacks.
    (tmp_path / "bytes").mkdir()
    (tmp_path / "bytes" / "vocab.json").write_text(
        json.dumps({t: i for t, i in vocab.items() if i < 256}))
    (tmp_path / "bytes" / "merges.txt").write_text("#version: 0.2\n")
    proc = nanogpt.run("--prompt", PROMPT, "--greedy",
                       tokenizer=str(tmp_path / "bytes" / "vocab.json"))
    assert proc.returncode == 1
    assert "does not have: the tokenizer does not belong to this model" in proc.stderr.decode()
    # An id beyond the model's logits.
    moved = dict(vocab)
    moved["A"] = 4000
    (tmp_path / "moved.json").write_text(json.dumps(moved))
    proc = nanogpt.run("--prompt", "A", "--merges", MERGES, tokenizer=str(tmp_path / "moved.json"))
    assert proc.returncode == 1
    assert "token id 4000" in proc.stderr.decode() and "512 logits" in proc.stderr.decode()


def test_missing_files_and_bad_options(nanogpt, tmp_path):
    proc = nanogpt.run("--prompt", "x", tokenizer=str(tmp_path / "vocab.json"))
    assert proc.returncode == 1 and "vocab.json: No such file" in proc.stderr.decode()
    shutil.copy(VOCAB, tmp_path / "vocab.json")
    proc = nanogpt.run("--prompt", "x", tokenizer=str(tmp_path / "vocab.json"))
    assert proc.returncode == 1 and f"{tmp_path}/merges.txt: No such file" in proc.stderr.decode()
    proc = LlmApp(nanogpt.app, str(tmp_path / "none.pte")).run("--prompt", "x")
    assert proc.returncode == 1 and "none.pte: cannot load the program" in proc.stderr.decode()
    for args, message in ((("--top-p", "1.5"), "--top-p"),
                          (("--frobnicate", "1"), "unknown option --frobnicate"),
                          (("--prompt-ids", "1 2"), "--prompt and --prompt-ids exclude"),
                          (("--max-tokens",), "--max-tokens needs a value")):
        proc = nanogpt.run("--prompt", "x", *args)
        assert proc.returncode == 2 and message in proc.stderr.decode(), proc.stderr.decode()
    proc = nanogpt.run("--prompt", "x", program=False)
    assert proc.returncode == 2 and "no PROGRAM" in proc.stderr.decode()
    proc = nanogpt.run("--decode", "1 x", program=False)
    assert proc.returncode == 1 and "'x' is not a token id" in proc.stderr.decode()
    proc = nanogpt.run("--decode", "1 4000", program=False)
    assert proc.returncode == 1 and "token id 4000 is not in the vocabulary" in proc.stderr.decode()
    proc = nanogpt.run("--encode", "x", program=False, tokenizer=None)
    assert proc.returncode == 2 and "--encode and --decode need --tokenizer" in proc.stderr.decode()


def test_help_lists_every_option(nanogpt):
    proc = nanogpt.run("--help", tokenizer=None, program=False)
    assert proc.returncode == 0
    for option in ("--tokenizer", "--merges", "--prompt", "--prompt-ids", "--max-tokens",
                   "--greedy", "--temperature", "--top-k", "--top-p", "--repetition-penalty",
                   "--seed", "--threads", "--print-ids", "--encode", "--decode", "--bench",
                   "--decode-bench", "--repeat"):
        assert option in proc.stdout.decode(), option
