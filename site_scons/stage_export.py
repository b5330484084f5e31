"""Export stage: one `python -m exporter` per model (torch never enters SCons) ->
<model>.pte, <model>.debug.json, <model>.deps and <model>.io.tar; then <model>_io/.

The check files (<model>_io/input_<i>.npy, expected_<i>.npy) are as many as the model
has inputs and outputs, which only the export knows, and SCons caches files, not
directories. So the export also packs them into one declared file, <model>.io.tar, which
a CacheDir stores and restores like any other output; unpacking it into <model>_io/ is a
step of its own that is never cached (it takes milliseconds), whose index file lists
what it wrote. Deleting <model>_io/ unpacks it again.
"""

import os
import tarfile

from SCons.Script import Action, Copy

from codegen.errors import ManifestError
from stage_context import python_module

IO_ARCHIVE = ".io.tar"  # <model>.io.tar: the check files as one declared output
IO_INDEX = "files.txt"  # in <model>_io/: what the unpack wrote, the step's declared target


def pack_io(target, source, env):
    """SCons action, after the exporter: <model>_io/ -> <model>.io.tar (written whole,
    then renamed), with fixed metadata so equal files give an equal archive."""
    archive = next(str(t) for t in target if str(t).endswith(IO_ARCHIVE))
    directory = archive[:-len(IO_ARCHIVE)] + "_io"
    tmp = archive + ".tmp"
    with tarfile.open(tmp, "w", format=tarfile.PAX_FORMAT) as tar:
        for name in sorted(os.listdir(directory)):
            if name == IO_INDEX:
                continue
            info = tar.gettarinfo(os.path.join(directory, name), arcname=name)
            info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
            with open(os.path.join(directory, name), "rb") as f:
                tar.addfile(info, f)
    os.replace(tmp, archive)
    return 0


def unpack_io(target, source, env):
    """SCons action: <model>.io.tar -> <model>_io/ (exactly its files) and its index,
    written last."""
    index = str(target[0])
    directory = os.path.dirname(index)
    os.makedirs(directory, exist_ok=True)
    with tarfile.open(str(source[0])) as tar:
        names = tar.getnames()
        tar.extractall(directory, filter="data")
    for name in set(os.listdir(directory)) - set(names) - {IO_INDEX}:
        os.unlink(os.path.join(directory, name))  # a check file of an older export
    with open(index + ".tmp", "w") as f:
        f.write("".join(name + "\n" for name in names))
    os.replace(index + ".tmp", index)
    return 0


def _check_backend(ctx, model) -> None:
    if model.backend not in ("", "none") and model.backend not in ctx.target.backends:
        raise ManifestError("%s: backend: %s, but target %s has backends [%s]; build it "
                            "for a target with that backend (target=host-%s)"
                            % (model.manifest, model.backend, ctx.plan.target_name,
                               ", ".join(ctx.target.backends), model.backend))


def wire_export(ctx, library_names, stale_imports) -> list:
    """Declares each model's export; returns [(model, pte node, io index node)].

    `stale_imports(env, deps path)` is the Value that re-exports when a Python file the
    last export imported has changed (stages._stale_imports)."""
    tenv, target, out = ctx.tenv, ctx.target, ctx.out
    exporter_sources = (ctx.sources("exporter/**/*.py") + ctx.sources("program/*.py")
                        + ["schema/program.fbs"])
    backend_sources = [src for b in target.backends
                       for src in ctx.sources("backends/%s/*.py" % b)
                       + ctx.sources("backends/%s/schema/*.fbs" % b)]
    # The target's backend (if any) takes what it can run, unless the model opts out.
    backend = (" --backend %s --kernel-libraries %s"
               % (target.backends[0], ",".join(library_names)) if target.backends else "")
    programs = []
    for model in ctx.plan.models:
        _check_backend(ctx, model)
        stem = "%s/%s" % (out, model.name)
        # The list of the Python files the export imported is an output too: the next
        # build depends on it.
        pte, _, deps, archive = tenv.Command(
            [stem + ".pte", stem + ".debug.json", stem + ".deps", stem + IO_ARCHIVE],
            [model.manifest],
            [Action(python_module("exporter") + " --manifest $SOURCE --out ${TARGETS[0]}"
                    " --deps-out ${TARGETS[2]}" + backend,
                    ctx.label("exporting %s" % model.name)),
             Action(pack_io, None)])
        tenv.Depends(pte, exporter_sources + list(model.sources) + backend_sources
                     + [stale_imports(tenv, deps.abspath)])
        tenv.Clean(pte, stem + "_io")  # a directory: removed whole
        index = tenv.Command("%s_io/%s" % (stem, IO_INDEX), archive, Action(unpack_io, None))
        tenv.NoCache(index)
        programs.append((model, pte, index[0]))
    return programs


def wire_tokenizers(ctx, programs) -> list:
    """The tokenizer files of each `llm:` model's checkpoint, copied beside its program as
    <model>.<file name> (tokenizer.json, or ...), where the llm app looks for them."""
    from tailor.llm.manifest import tokenizer_files
    copies = []
    for model, pte, _ in programs:
        if not model.llm_checkpoint:
            continue
        for path in tokenizer_files(model.llm_checkpoint):
            copies += ctx.tenv.Command("%s/%s.%s" % (ctx.out, model.name, os.path.basename(path)),
                                       path, Copy("$TARGET", "$SOURCE"))
    return copies
