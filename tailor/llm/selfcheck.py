"""The self-check of an `llm:` build (scons run=1), after the runner's check of the logits:

    python -m tailor.llm.selfcheck --manifest m.yaml --app build/host/m/bin/llm \
        --program build/host/m/m.pte --report build/host/m/m.llm-check.txt

1. greedy generation: the app's ids from a prompt against transformers' generate
   (do_sample=False) on the same checkpoint and prompt ids; without transformers
   installed, against Tailor's own decoder in torch eager (said in the report). A
   quantized build (`quantize:`) is compared with Tailor's decoder quantized the same
   way, in eager (quantization changes the ids; the runtime must not);
2. the tokenizer: the app's --encode and --decode of a few strings (Unicode, whitespace,
   numbers) against transformers' AutoTokenizer of the checkpoint (or the `tokenizers`
   package for a tokenizer.json), when either is installed.
Exit 0 and the report written (atomically) when everything compared is equal; 1 with
what differed otherwise.
"""

import argparse
import os
import shlex
import subprocess
import sys

import torch

from program.atomic import write_text_atomic

PROMPT = "And God said, Let there be light: and there was light."
STRINGS = ("Hello world", PROMPT, "  two  spaces,\ttab\nnew line ", "naïve café 日本語 🙂",
           "12345 3.14159 -42", "")


def _have(module: str) -> bool:
    try:
        __import__(module)
        return True
    except ImportError:
        return False


def _have_transformers() -> bool:
    # transformers imports torchvision when installed, whose operator registrations fail
    # on this torch: skip them first (as the zoo's models do).
    from examples.zoo.torchvision_models import skip_torchvision_op_registrations
    skip_torchvision_op_registrations()
    return _have("transformers")


def _hf_tokenizer(checkpoint: str):
    """The checkpoint's tokenizer through transformers or tokenizers, or None."""
    if _have_transformers():
        from transformers import AutoTokenizer
        try:
            return AutoTokenizer.from_pretrained(checkpoint)
        except (OSError, ValueError):
            return None
    path = os.path.join(checkpoint, "tokenizer.json")
    if _have("tokenizers") and os.path.isfile(path):
        from tokenizers import Tokenizer
        return Tokenizer.from_file(path)
    return None


def _encode(tokenizer, text: str, special: bool) -> list[int]:
    if hasattr(tokenizer, "encode_batch"):  # tokenizers.Tokenizer
        return tokenizer.encode(text, add_special_tokens=special).ids
    return tokenizer.encode(text, add_special_tokens=special)


def _run(command: list[str]) -> str:
    # errors="replace": the check compares ids; the text random weights generate may hold
    # bytes that are no UTF-8, and they must not stop the comparison.
    proc = subprocess.run(command, capture_output=True, text=True, errors="replace")
    if proc.returncode != 0:
        raise RuntimeError("%s exited %d:\n%s" % (shlex.join(command), proc.returncode,
                                                  proc.stdout + proc.stderr))
    return proc.stdout


def reference_greedy(checkpoint: str, max_seq_len: int, prompt: list[int], count: int,
                     eos_ids, quantize=None) -> tuple[list[int], str]:
    """(greedy ids after `prompt`, stopping after an eos id, the reference's name);
    `quantize` (a QuantizeSpec) makes the reference the decoder quantized so."""
    from tailor.llm.export import eager_greedy, make_decoder
    if quantize is not None:
        from exporter.quantize.apply import quantize_model
        decoder, _ = quantize_model(make_decoder(checkpoint, max_seq_len), quantize)
        return (eager_greedy(decoder, prompt, count, eos_ids),
                f"Tailor's decoder quantized ({quantize.describe()}) in torch eager")
    if _have_transformers():
        from transformers import AutoModelForCausalLM
        model = AutoModelForCausalLM.from_pretrained(checkpoint, dtype=torch.float32).eval()
        ids = torch.tensor([prompt])
        with torch.no_grad():
            out = model.generate(ids, attention_mask=torch.ones_like(ids), do_sample=False,
                                 max_new_tokens=count, pad_token_id=eos_ids[0] if eos_ids else 0)
        return out[0, len(prompt):].tolist(), "transformers generate(do_sample=False)"
    return (eager_greedy(make_decoder(checkpoint, max_seq_len), prompt, count, eos_ids),
            "Tailor's decoder in torch eager (transformers is not installed)")


def check(args) -> tuple[bool, list[str]]:
    from exporter.manifest import load_manifest
    from tailor.llm.config import read_config
    from tailor.llm.manifest import tokenizer_files
    manifest = load_manifest(args.manifest)
    factory_args = dict(manifest.factory_args)
    args.checkpoint, args.max_seq_len = factory_args["checkpoint"], factory_args["max_seq_len"]
    config = read_config(args.checkpoint)
    files = tokenizer_files(args.checkpoint)
    app = shlex.split(args.emulator) + [args.app]
    lines, ok = [], True
    tokenizer = _hf_tokenizer(args.checkpoint) if files else None
    if files:  # the build's copy beside the program (stage_export.wire_tokenizers)
        stem = os.path.splitext(args.program)[0]
        args.tokenizer = "%s.%s" % (stem, os.path.basename(files[0]))
    if tokenizer is not None:
        prompt = _encode(tokenizer, PROMPT, special=True)[:args.max_seq_len // 2]
    else:
        generator = torch.Generator().manual_seed(0)
        prompt = torch.randint(0, config.vocab_size, (8,), generator=generator).tolist()
    count = max(1, min(args.tokens, args.max_seq_len - len(prompt)))
    want, reference = reference_greedy(args.checkpoint, args.max_seq_len, prompt, count,
                                       config.eos_ids, manifest.quantize)
    out = _run(app + [args.program, "--prompt-ids", " ".join(map(str, prompt)),
                      "--max-tokens", str(count), "--greedy", "--print-ids"])
    got = [int(t) for line in out.splitlines() if line.startswith("generated ids:")
           for t in line.split(":", 1)[1].split()]
    same = got == want
    ok &= same
    lines.append("greedy, %d prompt ids: %s against %s" % (len(prompt),
                 "the same %d ids" % len(got) if same else "DIFFERENT", reference))
    if not same:
        lines += ["  app:       %s" % got, "  reference: %s" % want]
    if tokenizer is None:
        lines.append("tokenizer: not compared (%s)" % (
            "install transformers or tokenizers" if files else "the checkpoint has none"))
        return ok, lines
    differ = []
    for text in STRINGS:
        want_ids = _encode(tokenizer, text, special=False)
        got_ids = [int(t) for t in _run(app + ["--tokenizer", args.tokenizer, "--encode", text]
                                        ).split()]
        text_back = _run(app + ["--tokenizer", args.tokenizer, "--decode",
                                " ".join(map(str, want_ids))])
        if got_ids != want_ids or text_back != tokenizer.decode(want_ids):
            differ.append("  %r: app %s %r, reference %s %r" % (
                text, got_ids, text_back, want_ids, tokenizer.decode(want_ids)))
    ok &= not differ
    lines.append("tokenizer: %d strings %s" % (len(STRINGS), "encode and decode alike"
                                                 if not differ else "DIFFER:"))
    return ok, lines + differ


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tailor.llm.selfcheck",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--manifest", required=True, help="the model manifest (llm:)")
    parser.add_argument("--app", required=True)
    parser.add_argument("--program", required=True)
    parser.add_argument("--tokens", type=int, default=8, help="greedy tokens to compare")
    parser.add_argument("--emulator", default="", help="runs the app (cross targets)")
    parser.add_argument("--report", required=True)
    args = parser.parse_args(argv)
    try:
        ok, lines = check(args)
    except RuntimeError as e:
        ok, lines = False, [str(e)]
    lines.append("llm check %s" % ("passed" if ok else "FAILED"))
    name = os.path.splitext(os.path.basename(args.program))[0]  # checks run side by side
    print("\n".join("  %s: %s" % (name, line) for line in lines))
    if ok:
        write_text_atomic(args.report, "\n".join(lines) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
