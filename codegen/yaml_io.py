"""YAML in with line numbers for messages, YAML/text out atomically and deterministically."""

import functools
import os

import yaml

from codegen.errors import ManifestError
from program.atomic import write_text_atomic


class UniqueKeyLoader(yaml.SafeLoader):
    """SafeLoader that refuses a key given twice in one mapping: plain YAML keeps the
    last, so the first entry would be ignored without a word."""

    def construct_mapping(self, node, deep=False):
        seen = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if isinstance(key, (str, int, float, bool)) and key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"key '{key}' is given twice (first on line {seen[key]}); "
                    "keep one", key_node.start_mark)
            if isinstance(key, (str, int, float, bool)):
                seen[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep)


def parse_yaml(text: str):
    """yaml.safe_load with duplicate keys refused (yaml.YAMLError, with a problem_mark)."""
    return yaml.load(text, Loader=UniqueKeyLoader)


def yaml_error_message(e: yaml.YAMLError, path: str) -> str:
    """"<path>:<line>: not valid YAML: <problem>" for a parse error."""
    mark = getattr(e, "problem_mark", None)
    where = f"{path}:{mark.line + 1}" if mark else path
    problem = getattr(e, "problem", None) or str(e)
    return f"{where}: not valid YAML: {problem}"


def load_yaml(text: str, path: str):
    """Parsed YAML, or a ManifestError pointing at the line that does not parse."""
    try:
        return parse_yaml(text)
    except yaml.YAMLError as e:
        raise ManifestError(yaml_error_message(e, path)) from None


def entry_lines(text: str) -> list[int]:
    """1-based line of each item of a top-level YAML list (empty if not a list)."""
    node = yaml.compose(text, Loader=yaml.SafeLoader)
    if not isinstance(node, yaml.SequenceNode):
        return []
    return [item.start_mark.line + 1 for item in node.value]


def once_per_file(load):
    """Wraps `load(path, ...)`, a manifest reader, so that each version of a file (its
    path, size and modification time) is parsed once per process: the build asks for a
    target's manifest from several stages. What it returns must be immutable."""
    cache = {}

    @functools.wraps(load)
    def cached(path, *args, **kwargs):
        try:
            stat = os.stat(path)
        except OSError:
            return load(path, *args, **kwargs)  # the reader says what is wrong
        key = (os.getcwd(), os.path.abspath(path), stat.st_mtime_ns, stat.st_size, args,
               tuple(sorted(kwargs.items())))
        if key not in cache:
            cache[key] = load(path, *args, **kwargs)
        return cache[key]
    return cached


class _Dumper(yaml.SafeDumper):
    """Block mappings; lists of scalars on one line ([Float, Long]) so a person can scan."""


def _represent_list(dumper, items):
    flat = all(not isinstance(i, (list, dict)) for i in items) and len(str(items)) < 80
    return dumper.represent_sequence("tag:yaml.org,2002:seq", items, flow_style=flat)


_Dumper.add_representer(list, _represent_list)


def dump_yaml(data, header: str = "") -> str:
    """YAML text of `data`, keys in the order given, after the `header` comment lines."""
    body = yaml.dump(data, Dumper=_Dumper, default_flow_style=False, sort_keys=False,
                     width=4096, allow_unicode=False)
    return header + body


def write_text(path: str, text: str) -> None:
    write_text_atomic(path, text)
