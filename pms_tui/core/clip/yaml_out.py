"""How pms-tui writes a YAML value into a note's frontmatter (a clip's keys, the properties
an agent sets): PyYAML's safe dumper, with one fix. PyYAML is imported on first use (a
one-shot search never writes a note)."""

from __future__ import annotations

from functools import cache


@cache
def _dumper():
    import yaml

    class FrontmatterDumper(yaml.SafeDumper):
        """``yaml.safe_dump`` with one fix: a string holding a line break or a control character
        is written double-quoted with escapes. PyYAML's default for it, a multi-line single-quoted
        scalar, folds NEL (U+0085) into a space on reading and spreads the value over lines."""

    def represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
        style = '"' if any(not ch.isprintable() for ch in value) else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    FrontmatterDumper.add_representer(str, represent_str)
    return FrontmatterDumper


def dump(meta: dict) -> str:
    """``meta`` as YAML lines (each ending with ``\\n``), keys in the given order, any value
    reading back unchanged with ``yaml.safe_load``."""
    import yaml

    return yaml.dump(meta, Dumper=_dumper(), allow_unicode=True, sort_keys=False, width=1_000_000)
