"""Self-check and generation stages: run the built runner on each model's example
inputs and compare with torch eager (run=1); run each model's app on a prompt
(generate=). A target whose binaries cannot run on this machine skips its checks with
one message instead of failing."""

import os
import platform
import shutil
import subprocess
import sys

from SCons.Script import Action
from codegen import build_layout
from program.atomic import write_text_atomic
from stage_context import python_module

TRACE_RUNS = 5  # runs a trace=1 self-check times, for the per-operator summary

# Architecture names target manifests and machines use for one instruction set.
_SAME_ARCH = {"x86_64": {"x86_64", "amd64"}, "aarch64": {"aarch64", "arm64", "arm64-v8a"}}


def run_self_check(target, source, env):
    """Runs the runner's --check on one model; writes the report only when it passes.
    With targets [report, trace.json, trace.png] (trace=1) it traces the check's runs and
    prints the per-operator summary (python -m inspector)."""
    runner, program, tolerance = str(source[0]), str(source[1]), source[2].read()
    atol, rtol = tolerance.split()
    # A cross target's binary runs under its emulator (qemu-aarch64 -L ...).
    command = list(env["TL_EMULATOR"]) + [runner, program, "--check", "--atol", atol,
                                          "--rtol", rtol]
    if len(target) > 1:
        command += ["--repeat", str(TRACE_RUNS), "--trace", str(target[1])]
    print("checking %s against torch eager" % source[1].path)
    proc = subprocess.run(command, capture_output=True, text=True)
    report = proc.stdout + proc.stderr
    sys.stdout.write("".join("  " + line + "\n" for line in report.splitlines()))
    if proc.returncode != 0:
        print("error: self-check of %s failed (exit %d): %s" % (program, proc.returncode,
                                                               " ".join(command)))
        return 1
    if len(target) > 1:
        summary = [sys.executable, "-m", "inspector", program, "--trace", str(target[1]),
                   "--summary", "--png", str(target[2])]
        proc = subprocess.run(summary, capture_output=True, text=True, cwd=env.Dir("#").abspath)
        sys.stdout.write("".join(("  " + line).rstrip() + "\n"
                                 for line in (proc.stdout + proc.stderr).splitlines()))
        if proc.returncode != 0:
            print("error: the trace summary failed: %s" % " ".join(summary))
            return 1
    write_text_atomic(str(target[0]), report)  # an interrupted check leaves no report
    return 0


def cannot_run_here(target) -> str:
    """Why this machine cannot run `target`'s binaries, or "" when it can: through the
    target's emulator, or natively when the target names no other architecture."""
    if target.emulator:
        if shutil.which(target.emulator[0]) or os.path.isfile(target.emulator[0]):
            return ""
        return "its emulator %s is not installed (%s)" % (target.emulator[0],
                                                           target.install or "install it")
    machine = platform.machine().lower()
    if target.arch and target.arch.lower() not in _SAME_ARCH.get(machine, {machine}):
        return ("it builds for %s, this machine is %s, and the target names no emulator"
                % (target.arch, machine))
    return ""


def _runs_here(ctx, skipping: str) -> bool:
    """Whether this machine runs the target's binaries; when not, says what is skipped and
    why, once per plan."""
    why = cannot_run_here(ctx.target)
    if why:
        print("[%s %s] %s: %s" % (ctx.plan.target_name, ctx.plan.variant, skipping, why))
    return not why


def wire_checks(ctx, runner, programs: list) -> list:
    """The runtime's outputs on the example inputs against torch eager, per model; the
    reports are never cached, so every build directory runs its own check."""
    plan, tenv = ctx.plan, ctx.tenv
    if not plan.run:
        return []
    if not _runs_here(ctx, "run=1: skipping the self-checks"):
        return []
    checks = []
    for model, pte, io_index in programs:
        stem = "%s/%s" % (ctx.out, model.name)
        check = tenv.Command(
            [build_layout.check_report(ctx.out, model.name)]
            + ([stem + ".trace.json", stem + ".trace.png"] if plan.trace else []),
            [runner[0], pte, tenv.Value("%r %r" % (model.atol, model.rtol)),
             tenv.Value(" ".join(tenv["TL_EMULATOR"])), io_index],
            Action(run_self_check, None))
        if plan.trace:
            tenv.Depends(check, ctx.sources("inspector/*.py"))
        tenv.NoCache(check)
        checks.append(check)
    return checks


def wire_generate(ctx, apps: list, programs: list, checks: list) -> list:
    """Runs each model's app on the prompt after the build (every time: output is the
    point), and after the self-checks, so a runtime that fails its check never generates."""
    plan = ctx.plan
    if apps and not _runs_here(ctx, "generate=: skipping"):
        return []
    ptes = {model.name: pte for model, pte, _ in programs}
    aliases = []
    for model, app in apps:
        command = list(ctx.tenv["TL_EMULATOR"]) + [app.abspath, ptes[model.name].abspath] + list(
            model.app_args) + ["--prompt", ctx.plan.generate]
        # One alias per target: in a matrix build SCons would merge same-named aliases.
        alias = ctx.tenv.Alias("generate-%s-%s" % (plan.target_name, model.name),
                               [app, ptes[model.name]], Action(
            lambda target, source, env, command=command:
                subprocess.run(command, cwd=env.Dir("#").abspath).returncode,
            "%s: generating from %r" % (model.app_name, ctx.plan.generate)))
        ctx.tenv.AlwaysBuild(alias)
        ctx.tenv.Depends(alias, checks)
        aliases.append(alias)
    return aliases


def wire_llm_checks(ctx, apps: list, programs: list, tokenizers: list, checks: list) -> list:
    """For each `llm:` model: greedy ids of its app against transformers, and its
    tokenizer against the tokenizers library (python -m tailor.llm.selfcheck), after the
    runner's check of the logits. Never cached, like the other checks."""
    plan = ctx.plan
    if not plan.run or not any(model.llm_checkpoint for model, _ in apps):
        return []
    if not _runs_here(ctx, "run=1: skipping the llm checks"):
        return []
    ptes = {model.name: pte for model, pte, _ in programs}
    emulator = " ".join(ctx.tenv["TL_EMULATOR"])
    llm_checks = []
    for model, app in apps:
        if not model.llm_checkpoint:
            continue
        # $SOURCES, not ctx.out: a path spelled from the top ("#build/...") would start a
        # shell comment.
        command = (python_module("tailor.llm.selfcheck") + " --app ${SOURCES[0]} "
                   "--program ${SOURCES[1]} --manifest ${SOURCES[2]} --report $TARGET")
        if emulator:
            command += " --emulator '%s'" % emulator
        check = ctx.tenv.Command(build_layout.llm_check_report(ctx.out, model.name),
                                 [app, ptes[model.name], model.manifest], Action(
            command, "checking %s's generation and tokenizer" % model.name))
        ctx.tenv.Depends(check, tokenizers + checks + ctx.sources("tailor/llm/*.py"))
        ctx.tenv.NoCache(check)
        llm_checks.append(check)
    return llm_checks
