"""A model manifest's `llm:` key -> the manifest keys it stands for (torch-free).

    description: my SmolLM
    llm: {checkpoint: /data/SmolLM-135M, max_seq_len: 512}   # dtype: float32 (optional)
    quantize: 8da4w                                           # optional, as for any model

becomes the factory tailor.llm.export:make_llm over the checkpoint, with tokens [1, T]
and input_pos [T] where T is dynamic in 1..max_seq_len (prefill and decode are one
method), the generation metadata as constant methods (from config.json and
generation_config.json), the cache-attention kernels, the checkpoint's files as data
(an edit re-exports), and the `llm` app (apps/llm/), whose tokenizer the build copies
beside the program. A relative checkpoint path is relative to the repository (the
directory scons runs in).
"""

import glob
import os

from codegen.errors import ManifestError
from tailor.llm.config import read_config
from tailor.llm.kernels import KERNEL_LIBRARIES

LLM_KEYS = ("checkpoint", "max_seq_len", "dtype")
DTYPES = ("float32",)
# What `llm:` sets; a manifest with `llm:` cannot set these too.
SETS = ("factory", "factory_args", "dynamic_dims", "constant_methods", "app")
TOLERANCE = {"atol": 1e-4, "rtol": 1e-4}
APP_SOURCES = ["apps/llm/*.cpp", "apps/llm/tokenizer/*.cpp"]  # the llm app and its tokenizers
# Tokenizer files in the order the app prefers them; each is copied beside the program
# as <model>.<name>.
TOKENIZER_FILES = (("tokenizer.json",), ("tokenizer.model",), ("vocab.json", "merges.txt"))


def checkpoint_path(path: str, llm: dict, repo: str) -> str:
    checkpoint = llm.get("checkpoint")
    if not isinstance(checkpoint, str) or not checkpoint:
        raise ManifestError(f"{path}: llm: checkpoint must be the path of a checkpoint "
                            "directory (what save_pretrained writes), e.g. "
                            "llm: {checkpoint: /data/SmolLM-135M, max_seq_len: 512}")
    full = os.path.join(repo, os.path.expanduser(checkpoint))  # absolute stays absolute
    if not os.path.isdir(full):
        raise ManifestError(f"{path}: llm: checkpoint '{checkpoint}' is not a directory "
                            f"({full}); give the directory save_pretrained wrote")
    return os.path.normpath(full)


def tokenizer_files(checkpoint: str) -> tuple[str, ...]:
    """The checkpoint's tokenizer: the first of TOKENIZER_FILES it has whole, or ()."""
    for names in TOKENIZER_FILES:
        paths = tuple(os.path.join(checkpoint, n) for n in names)
        if all(os.path.isfile(p) for p in paths):
            return paths
    return ()


def expand_llm(path: str, data: dict, repo: str) -> dict:
    """The manifest `data` with its `llm:` key replaced by the keys it stands for (the
    key itself stays, so that the reader knows)."""
    llm = data["llm"]
    for key in llm:
        if key not in LLM_KEYS:
            raise ManifestError(f"{path}: llm: unknown key '{key}'; allowed keys: "
                                f"{', '.join(LLM_KEYS)}")
    for key in SETS:
        if key in data:
            raise ManifestError(f"{path}: {key}: a manifest with llm: gets it from the "
                                "checkpoint; remove it")
    checkpoint = checkpoint_path(path, llm, repo)
    config = read_config(checkpoint)
    max_seq_len = llm.get("max_seq_len", min(config.max_positions, 2048))
    if not isinstance(max_seq_len, int) or isinstance(max_seq_len, bool) or not (
            1 <= max_seq_len <= config.max_positions):
        raise ManifestError(f"{path}: llm: max_seq_len must be an integer in 1.."
                            f"{config.max_positions} (the checkpoint's max_position_embeddings),"
                            f" not {max_seq_len!r}")
    dtype = llm.get("dtype", "float32")
    if dtype not in DTYPES:
        raise ManifestError(f"{path}: llm: dtype '{dtype}' is not supported: programs compute "
                            f"in {', '.join(DTYPES)}; to make the program smaller use "
                            "`quantize: 8da4w` (or 8da8w)")
    files = sorted(p for p in glob.glob(os.path.join(glob.escape(checkpoint), "*"))
                   if os.path.isfile(p) and not os.path.basename(p).startswith("."))
    # A checkpoint without bos or eos ids gets no method for them (the app then takes
    # the tokenizer's, else starts from the prompt alone and runs to --max-tokens).
    metadata = {"get_max_seq_len": max_seq_len, "get_vocab_size": config.vocab_size}
    if config.bos_id >= 0:
        metadata["get_bos_id"] = config.bos_id
    if config.eos_ids:
        metadata["get_eos_ids"] = list(config.eos_ids)
    return {**data,
            "factory": "tailor.llm.export:make_llm",
            "factory_args": {"checkpoint": checkpoint, "max_seq_len": max_seq_len},
            "dynamic_dims": [{"input": 0, "dim": 1, "name": "T", "min": 1, "max": max_seq_len},
                             {"input": 1, "dim": 0, "name": "T", "min": 1, "max": max_seq_len}],
            "constant_methods": metadata,
            "kernel_libraries": list(KERNEL_LIBRARIES) + data.get("kernel_libraries", []),
            "tolerance": data.get("tolerance", TOLERANCE),
            "data": data.get("data", []) + files,
            "app": {"name": "llm", "sources": APP_SOURCES}}
