"""Builds the libFuzzer target and its seed corpus into build/fuzz/.

    python -m fuzz.build                       build (cached), print the binary and corpus paths
    python -m fuzz.build --run 600             ... then fuzz for 600 s on one core
    python -m fuzz.build --runs 10000000 --jobs 2 --corpus DIR
                                               ... until 10 M inputs ran, in 2 processes
                                               (under nice -n 19), growing the corpus DIR
    python -m fuzz.build --merge DIR           replace fuzz/corpus/ by the fewest inputs of
                                               it and DIR that keep their coverage

The target is a build variant: `scons target=host-xnnpack select=all sanitize=fuzzer
programs=@<the seeds>` (clang++ -fsanitize=fuzzer,address,undefined,float-cast-overflow)
links bin/fuzz_program (fuzz/fuzz_program.cpp) with the runtime, every kernel of the
target's libraries (optimized, quantized, portable, prim) in every dtype, and the
XNNPACK delegate over the system's libXNNPACK; host where XNNPACK is not installed.
The seeds go in as programs= so that each (op, dtypes) they call gets the kernel a
build for them would pick (the optimized Float kernels, which select=all alone passes
over for the portable ones that take every dtype); everything else runs on the kernel
that takes any dtype. SCons rebuilds what changed.

Seeds are small on purpose, since libFuzzer mutates up to the largest input and each
input costs about its size: the MLP (on the kernels, and wholly delegated to XNNPACK),
a 1-layer GPT 8 wide and the same quantized 8da8w, a 32-wide MLP quantized 8da4w, a
convolution net (on the kernels, and delegated as a host-xnnpack build delegates it)
(fuzz/seed_models/, fuzz/seed_factories.py), and the hand-built programs of
fuzz/seed_programs.py (control flow, several methods, every value kind). They are
cached by a digest of their inputs.
"""

import argparse
import concurrent.futures
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from codegen import build_layout  # noqa: E402
from program.atomic import write_text_atomic  # noqa: E402

BUILD = os.path.join(REPO, build_layout.tree("fuzz"))
SCONS_BUILD = build_layout.tree(os.path.join("fuzz", "scons"))  # build_dir=, beside the seeds
REGRESSIONS = os.path.join(REPO, "fuzz", "regressions")
# A long run's corpus, minimized: every run starts from it besides the seeds.
CORPUS = os.path.join(REPO, "fuzz", "corpus")
# The XNNPACK delegate is fuzzed too where this target's libraries are installed.
XNNPACK_TARGET = "host-xnnpack"
# Exported as a host-xnnpack build exports: XNNPACK takes only convolution and pooling
# groups beside the optimized kernels.
BESIDE_OPTIMIZED = "optimized,quantized,portable,prim"
# (seed name, model manifest, backend, --kernel-libraries): each a program of a few KB.
SEED_MODELS = (
    ("mlp", "manifests/models/mlp.yaml", "", ""),
    ("mlp_xnnpack", "manifests/models/mlp.yaml", "xnnpack", ""),  # the linears delegated
    ("gpt_micro", "fuzz/seed_models/gpt_micro.yaml", "", ""),
    ("gpt_micro_8da8w", "fuzz/seed_models/gpt_micro_8da8w.yaml", "", ""),
    ("mlp_8da4w", "fuzz/seed_models/mlp_8da4w.yaml", "", ""),
    ("conv_micro", "fuzz/seed_models/conv_micro.yaml", "", ""),
    ("conv_micro_xnnpack", "fuzz/seed_models/conv_micro.yaml", "xnnpack", BESIDE_OPTIMIZED),
)
# libFuzzer's bound on an input: above the largest seed (gpt_micro, 21 KB), well below
# the programs of real models, which would make every mutation cost their size.
MAX_LEN = 32768
# libFuzzer links with clang++ (the build's sanitize=fuzzer, site_scons/targets.py).
PROBE_FLAGS = ["-fsanitize=fuzzer,address,undefined,float-cast-overflow"]

SANITIZER_ENV = {
    "ASAN_OPTIONS": "detect_leaks=1:allocator_may_return_null=1",
    "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
}


class Unavailable(Exception):
    """No clang++ with libFuzzer on this machine."""


def clang() -> str:
    """clang++ if it links a libFuzzer target, else raises Unavailable with the reason."""
    cxx = shutil.which("clang++")  # what `scons sanitize=fuzzer` compiles with
    if cxx is None:
        raise Unavailable("clang++ is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "t.cpp")
        with open(src, "w") as f:
            f.write('#include <stddef.h>\n#include <stdint.h>\nextern "C" int '
                    "LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }\n")
        proc = subprocess.run([cxx, *PROBE_FLAGS, src, "-o", os.path.join(tmp, "t")],
                              capture_output=True, text=True)
    if proc.returncode != 0:
        raise Unavailable("%s cannot link a libFuzzer target (libclang-rt-dev missing?): %s"
                          % (cxx, proc.stderr.strip().splitlines()[-1:]))
    return cxx


def _digest(tops, extra: str) -> str:
    h = hashlib.sha256(extra.encode())
    for top in tops:
        path = os.path.join(REPO, top)
        walk = [(os.path.dirname(path), [], [os.path.basename(path)])] if os.path.isfile(
            path) else os.walk(path)
        for root, dirs, files in sorted(walk):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                path = os.path.join(root, name)
                h.update(os.path.relpath(path, REPO).encode())
                h.update(open(path, "rb").read())
    return h.hexdigest()[:16]


def _py(*args, cwd=REPO):
    proc = subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError("python %s failed:\n%s" % (" ".join(args), proc.stderr[-4000:]))


def _publish(work: str, final: str):
    """Moves a finished build into place, replacing older ones (other digests)."""
    parent = os.path.dirname(final)
    os.makedirs(parent, exist_ok=True)
    for old in os.listdir(parent):
        if old != os.path.basename(final) and not old.startswith("."):
            shutil.rmtree(os.path.join(parent, old), ignore_errors=True)
    try:
        os.rename(work, final)
    except OSError:  # a concurrent build got there first: it is the same content
        shutil.rmtree(work, ignore_errors=True)


def _fuzz_target() -> str:
    """The target whose backends the fuzzer links: host-xnnpack where its libraries are
    installed, else host."""
    from codegen.target import load_target
    manifest = os.path.join(REPO, "manifests", "targets", XNNPACK_TARGET + ".yaml")
    installed = all(os.path.exists(r) for r in load_target(manifest).requires
                    if os.path.isabs(r))
    return XNNPACK_TARGET if installed else "host"


def fuzzer_build(seeds: str, select: str = "all") -> tuple:
    """(scons options, build directory) of the fuzzer variant for the seeds in `seeds`:
    with every kernel (select "all"), or with the seeds' kernels only ("used": minutes
    less to compile; a mutated dtype is then refused at load instead of run)."""
    target = _fuzz_target()
    # Delegated seeds select kernels only where the runtime has their backend.
    programs = sorted(os.path.join(seeds, name) for name in os.listdir(seeds)
                      if target == XNNPACK_TARGET or not name.endswith("_xnnpack.pte"))
    listing = os.path.join(BUILD, "seed_programs.txt")
    write_text_atomic(listing, "".join(p + "\n" for p in programs))
    options = ["target=" + target, "select=" + select, "sanitize=fuzzer",
               "programs=@" + listing, "build_dir=" + SCONS_BUILD]
    out = build_layout.output_dir(programs=programs, build_dir=SCONS_BUILD, target=target,
                                  sanitize="fuzzer", select_all=select == "all")
    return options, os.path.join(REPO, out)


def build_fuzzer(seeds: str, jobs: int = 2, select: str = "all") -> str:
    """Path of the fuzz target binary (fuzzer_build's variant), built by SCons (up to date:
    a few seconds), as the build's outputs.json names it."""
    clang()
    options, out = fuzzer_build(seeds, select)
    scons = os.path.join(os.path.dirname(sys.executable), "scons")
    proc = subprocess.run([scons, "-j%d" % jobs, *options], cwd=REPO, capture_output=True,
                          text=True)
    if proc.returncode != 0:
        raise RuntimeError("building the fuzzer failed (exit %d):\n%s%s"
                           % (proc.returncode, proc.stdout[-4000:], proc.stderr[-4000:]))
    return build_layout.outputs(out).fuzzer


def build_seeds() -> str:
    """Directory of the seed corpus: the seed models exported from their manifests, and
    the hand-built programs of fuzz/seed_programs.py."""
    final = os.path.join(BUILD, "seeds", _digest(
        ("exporter", "program", "examples", "schema", "backends/xnnpack", "fuzz/seed_models",
         "fuzz/seed_factories.py", "fuzz/seed_programs.py", "manifests/models/mlp.yaml"),
        repr(SEED_MODELS)))
    if os.path.isdir(final):
        return final
    os.makedirs(os.path.join(BUILD, "seeds"), exist_ok=True)
    work = tempfile.mkdtemp(prefix=".build-", dir=os.path.join(BUILD, "seeds"))
    export = os.path.join(work, "export")

    def export_one(seed):
        name, manifest, backend, libraries = seed
        out = os.path.join(export, name + ".pte")
        _py("-m", "exporter", "--manifest", os.path.join(REPO, manifest), "--out", out,
            "--backend", backend, "--kernel-libraries", libraries)
        shutil.copy2(out, os.path.join(work, name + ".pte"))

    with concurrent.futures.ThreadPoolExecutor(2) as pool:  # each export is one process
        list(pool.map(export_one, SEED_MODELS))
    shutil.rmtree(export)  # the corpus holds programs only, not their check files
    _py("-m", "fuzz.seed_programs", work)
    _publish(work, final)
    return final


def fuzz(binary: str, corpora, *flags: str, timeout: float, corpus: str = "", jobs: int = 1,
         nice: bool = False) -> subprocess.CompletedProcess:
    """Runs the fuzzer on `corpus` (a temporary directory unless given) after copying
    `corpora` into it, so new inputs land in the tree only when asked. With jobs > 1,
    that many processes share the corpus (libFuzzer prints their logs on its stderr).
    Crashes are copied to build/fuzz/artifacts/."""
    work = tempfile.mkdtemp(prefix="fuzz-")
    try:
        corpus = corpus or os.path.join(work, "corpus")
        os.makedirs(corpus, exist_ok=True)
        for src in corpora:
            for name in sorted(os.listdir(src)):
                path = os.path.join(src, name)
                if os.path.isfile(path) and not name.startswith(("README", ".")):
                    shutil.copy2(path, os.path.join(corpus, name))
        command = [binary, "-max_len=%d" % MAX_LEN, *flags, "-artifact_prefix=%s/" % work]
        if jobs > 1:
            command += ["-jobs=%d" % jobs, "-workers=%d" % jobs]
        # nice: the long run takes both cores only while nobody else wants them.
        proc = subprocess.run((["nice", "-n", "19"] if nice else []) + command + [corpus],
                              capture_output=True, text=True, errors="replace", timeout=timeout,
                              env=dict(os.environ, **SANITIZER_ENV), cwd=work)
        return proc
    finally:
        artifacts = [n for n in os.listdir(work) if n.startswith(("crash-", "leak-", "timeout-",
                                                                  "oom-"))]
        if artifacts:  # kept for the report: copy them to fuzz/regressions/ once fixed
            os.makedirs(os.path.join(BUILD, "artifacts"), exist_ok=True)
            for name in artifacts:
                shutil.copy2(os.path.join(work, name), os.path.join(BUILD, "artifacts", name))
        shutil.rmtree(work, ignore_errors=True)


def merge(binary: str, grown: str) -> int:
    """Replaces fuzz/corpus/ by the fewest inputs of it and `grown` that keep their
    coverage on this fuzzer (libFuzzer -merge=1 into an empty directory), so the corpus
    stays minimal as the fuzzer changes, not a pile of every earlier run's inputs."""
    os.makedirs(CORPUS, exist_ok=True)
    fresh = tempfile.mkdtemp(prefix=".corpus-", dir=os.path.dirname(CORPUS))
    proc = subprocess.run(["nice", "-n", "19", binary, "-merge=1", "-max_len=%d" % MAX_LEN,
                           fresh, CORPUS, grown], capture_output=True, text=True,
                          errors="replace", env=dict(os.environ, **SANITIZER_ENV))
    sys.stderr.write(proc.stderr[-2000:])
    if proc.returncode != 0 or not os.listdir(fresh):
        shutil.rmtree(fresh, ignore_errors=True)
        return proc.returncode or 1
    shutil.rmtree(CORPUS)
    os.rename(fresh, CORPUS)
    print("fuzz/corpus/: %d inputs, %d KB" % (len(os.listdir(CORPUS)), sum(
        os.path.getsize(os.path.join(CORPUS, n)) for n in os.listdir(CORPUS)) // 1024))
    return 0


def executed_units(stderr: str) -> int:
    """Inputs run, summed over the processes of one fuzz() call (from -print_final_stats)."""
    return sum(int(part.split()[0])
               for part in stderr.split("stat::number_of_executed_units:")[1:])


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--run", type=int, metavar="SECONDS", help="then fuzz this long")
    p.add_argument("--runs", type=int, metavar="N", help="then fuzz until N inputs ran (with "
                   "--run too: until either)")
    p.add_argument("--jobs", type=int, default=1, help="fuzzing processes (under nice -n 19)")
    p.add_argument("--corpus", default="", help="keep the grown corpus in this directory")
    p.add_argument("--merge", metavar="DIR", help="minimize fuzz/corpus/ together with DIR's "
                   "inputs into fuzz/corpus/")
    args = p.parse_args()
    seeds = build_seeds()
    try:
        binary = build_fuzzer(seeds)
    except Unavailable as e:
        print("fuzz: %s" % e, file=sys.stderr)
        return 1
    print("fuzzer: %s\nseeds: %s\nregressions: %s" % (binary, seeds, REGRESSIONS))
    if args.merge:
        return merge(binary, args.merge)
    if not args.run and not args.runs:
        return 0
    # Whichever comes first; both count per process.
    limit = ((["-max_total_time=%d" % args.run] if args.run else []) +
             (["-runs=%d" % -(-args.runs // args.jobs)] if args.runs else []))
    corpus = os.path.abspath(args.corpus) if args.corpus else ""  # the fuzzer runs elsewhere
    started = time.monotonic()
    proc = fuzz(binary, [seeds, CORPUS, REGRESSIONS], *limit, "-timeout=20", "-print_final_stats=1",
                timeout=(args.run or 10 ** 6) + 300, corpus=corpus, jobs=args.jobs,
                nice=args.jobs > 1)
    elapsed = time.monotonic() - started
    sys.stderr.write(proc.stderr[-6000:])
    runs = executed_units(proc.stderr)
    print("%d executions in %.0f s (%.0f exec/s), %d process(es), exit %d"
          % (runs, elapsed, runs / elapsed, args.jobs, proc.returncode))
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
