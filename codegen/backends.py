"""Target manifest + backends/<name>/backend.yaml -> BackendPlan (backend_plan.yaml).

A target lists the delegate backends its runtime contains (`backends: [xnnpack]`); each
names its C++ Backend object, the header declaring it, its runtime sources, payload
schemas and export-time partitioner in backends/<name>/backend.yaml, which this module
alone reads. The plan is what the build compiles and what
codegen/render.py puts in gen/register_backends.cpp (the table Method load searches).

CLI: python -m codegen.backends --target TARGET.yaml --out backend_plan.yaml
"""

import argparse
import glob
import os
import re
import sys
from dataclasses import dataclass

from codegen.errors import ManifestError, run_cli, suggest
from codegen.roots import PACKAGE as REPO
from codegen.target import load_target
from codegen.yaml_io import dump_yaml, load_yaml, write_text

_KEYS = ("description", "symbol", "header", "sources", "schemas", "partitioner")
_ENTRY_POINT = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")   # module:function
_HEADER = "# Backend plan, written by codegen/backends.py: the target's delegate backends.\n"


@dataclass(frozen=True)
class BackendChoice:
    name: str                    # "xnnpack": what the program's Delegate entries say
    symbol: str                  # "tailor::xnnpack::kBackend"
    header: str                  # declares the symbol
    sources: tuple[str, ...]     # runtime sources, relative to the repo, sorted
    schemas: tuple[str, ...]     # flatbuffer schemas its sources include (as <stem>_generated.h)
    partitioner: str = ""        # "module:function" making its export-time Partitioner


@dataclass(frozen=True)
class BackendPlan:
    backends: tuple[BackendChoice, ...]    # in the target's order


def available_backends(repo: str = REPO) -> list[str]:
    """The backends there are: each backends/<name>/backend.yaml."""
    return sorted(os.path.basename(os.path.dirname(p))
                  for p in glob.glob(os.path.join(repo, "backends", "*", "backend.yaml")))


def parse_backend(name: str, text: str, path: str, repo: str = REPO) -> BackendChoice:
    data = load_yaml(text, path)
    if not isinstance(data, dict):
        raise ManifestError(f"{path}: a backend is a YAML mapping ({', '.join(_KEYS)})")
    for key in data:
        if key not in _KEYS:
            raise ManifestError(f"{path}: unknown key '{key}'{suggest(str(key), _KEYS)}; "
                                f"the keys are {', '.join(_KEYS)}")
    for key in ("symbol", "header", "sources"):
        if key not in data:
            raise ManifestError(f"{path}: {key} is missing")
    partitioner = data.get("partitioner", "")
    if partitioner and not (isinstance(partitioner, str) and _ENTRY_POINT.match(partitioner)):
        raise ManifestError(f"{path}: partitioner must be 'module:function', e.g. "
                            "backends.xnnpack:make_partitioner")
    for key in ("sources", "schemas"):
        if not (isinstance(data.get(key, []), list)
                and all(isinstance(v, str) for v in data.get(key, []))):
            raise ManifestError(f"{path}: {key} must be a list of paths or globs")
    sources = sorted({os.path.relpath(p, repo) for pattern in data["sources"]
                      for p in glob.glob(os.path.join(repo, pattern))})
    if not sources:
        raise ManifestError(f"{path}: sources {data['sources']} match no file")
    return BackendChoice(name, str(data["symbol"]), str(data["header"]), tuple(sources),
                         tuple(data.get("schemas", [])), partitioner)


def plan_backends(names, target_path: str, repo: str = REPO) -> BackendPlan:
    """The BackendPlan for backend `names` (a target's `backends:`)."""
    known = available_backends(repo)
    chosen = []
    for name in names:
        if name not in known:
            raise ManifestError(f"{target_path}: backend '{name}' has no backends/{name}/"
                                f"backend.yaml{suggest(name, known)}; the backends are "
                                f"{', '.join(known) or '(none)'}")
        path = os.path.join("backends", name, "backend.yaml")
        with open(os.path.join(repo, path)) as f:
            chosen.append(parse_backend(name, f.read(), path, repo))
    return BackendPlan(tuple(chosen))


def plan_to_yaml(plan: BackendPlan) -> str:
    return dump_yaml({"backends": [dict(name=b.name, symbol=b.symbol, header=b.header,
                                        sources=list(b.sources), schemas=list(b.schemas))
                                   for b in plan.backends]}, _HEADER)


def parse_plan(text: str, path: str) -> BackendPlan:
    data = load_yaml(text, path)
    try:
        return BackendPlan(tuple(BackendChoice(b["name"], b["symbol"], b["header"],
                                               tuple(b["sources"]), tuple(b["schemas"]))
                                 for b in data["backends"]))
    except (KeyError, TypeError) as e:
        raise ManifestError(f"{path}: not a backend plan ({e!r}); write it with "
                            "python -m codegen.backends") from None


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m codegen.backends",
                                description=__doc__.split("\n")[0])
    p.add_argument("--target", required=True, help="manifests/targets/<name>.yaml")
    p.add_argument("--out", required=True, help="backend_plan.yaml to write")
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    target = load_target(args.target)
    write_text(args.out, plan_to_yaml(plan_backends(target.backends, target.path)))
    return 0


if __name__ == "__main__":
    sys.exit(run_cli(main))
