#!/usr/bin/env python3
"""Reads Apptainer definition files (the subset ciphersweep's recipes use).

One parser serves the registry-free image build (containers/build-image.sh) and the
tests, so that both read a recipe the same way Apptainer does:

* header: ``Key: value`` lines before the first section (``Bootstrap``, ``From``, ...);
* sections: ``%name`` or ``%name app`` (for ``%apprun``/``%apphelp``/...), body up to the
  next section;
* ``%arguments``: ``NAME=default`` lines; ``{{ NAME }}`` anywhere in the file is replaced
  by the value given with ``--build-arg NAME=VALUE`` (or the default);
* ``%files``: ``SRC [DST]`` lines, SRC relative to the directory the build runs in
  (the repository root).

Command line (stdlib only, used by build-image.sh)::

    deffile.py RECIPE header KEY          print a header value
    deffile.py RECIPE section NAME [APP]  print a section body (after {{ }} substitution)
    deffile.py RECIPE files               print "SRC<TAB>DST" per %files entry
    deffile.py RECIPE labels              print the %labels as a JSON object
    deffile.py RECIPE environment         print %environment as KEY=VALUE lines
    deffile.py RECIPE check               parse everything; exit 1 with a message if bad

Every command accepts ``--build-arg NAME=VALUE`` (repeatable) before the recipe.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

#: Sections Apptainer knows; anything else is an error (a typo would be silently ignored
#: by a hand-rolled reader otherwise).
KNOWN_SECTIONS = {
    "arguments",
    "setup",
    "files",
    "post",
    "environment",
    "runscript",
    "startscript",
    "test",
    "labels",
    "help",
    "appinstall",
    "appfiles",
    "appenv",
    "apprun",
    "applabels",
    "apptest",
    "apphelp",
}
APP_SECTIONS = {s for s in KNOWN_SECTIONS if s.startswith("app")}
KNOWN_HEADERS = {
    "bootstrap",
    "from",
    "stage",
    "fingerprints",
    "includecmd",
    "mirrorurl",
    "osversion",
    "include",
    "confurl",
    "updateurl",
    "library",
    "registry",
    "namespace",
}

_SECTION_RE = re.compile(r"^%([A-Za-z]+)(?:\s+(\S+))?\s*$")
_TEMPLATE_RE = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


class DefError(ValueError):
    """A definition file that Apptainer would reject or that ciphersweep cannot use."""


@dataclass
class DefFile:
    path: Path
    header: dict[str, str] = field(default_factory=dict)
    #: (section, app or "") -> body text (lines joined with "\n")
    sections: dict[tuple[str, str], str] = field(default_factory=dict)

    def section(self, name: str, app: str = "") -> str:
        return self.sections.get((name, app), "")

    def apps(self) -> list[str]:
        return sorted({app for (name, app) in self.sections if name in APP_SECTIONS})

    def files(self) -> list[tuple[str, str]]:
        """The %files entries as (src, dst); dst defaults to src like Apptainer's."""
        out = []
        for line in self.section("files").splitlines():
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = shlex.split(line)
            if len(parts) > 2:
                raise DefError(f"{self.path}: %files: '{line}' has more than SRC DST")
            src = parts[0]
            dst = parts[1] if len(parts) == 2 else parts[0]
            out.append((src, dst))
        return out

    def labels(self) -> dict[str, str]:
        out = {}
        for line in self.section("labels").splitlines():
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            key, _, value = line.partition(" ")
            out[key] = value.strip()
        return out

    def environment(self) -> dict[str, str]:
        """%environment reduced to its ``export KEY=VALUE`` lines (all ours has)."""
        out = {}
        for line in self.section("environment").splitlines():
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            m = re.match(r"^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$", line)
            if not m:
                raise DefError(f"{self.path}: %environment: '{line}' is not KEY=VALUE")
            value = shlex.split(m.group(2))[0] if m.group(2) else ""
            out[m.group(1)] = value
        return out


def parse_arguments(text: str) -> dict[str, str]:
    """Defaults from an %arguments body (``NAME=value`` lines)."""
    out = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key.strip()):
            raise DefError(f"%arguments: '{line}' is not NAME=value")
        out[key.strip()] = value.strip()
    return out


def parse(path: str | Path, build_args: dict[str, str] | None = None) -> DefFile:
    path = Path(path)
    raw = path.read_text()
    # First pass on the raw text: the %arguments defaults.
    first = _split(path, raw)
    args = parse_arguments(first.section("arguments"))
    args.update(build_args or {})

    def subst(m: re.Match[str]) -> str:
        name = m.group(1)
        if name not in args:
            raise DefError(
                f"{path}: {{{{ {name} }}}} has no value (no %arguments default "
                f"and no --build-arg {name}=...)"
            )
        return args[name]

    return _split(path, _TEMPLATE_RE.sub(subst, raw))


def _split(path: Path, text: str) -> DefFile:
    d = DefFile(path)
    current: tuple[str, str] | None = None
    body: list[str] = []
    for n, line in enumerate(text.splitlines(), 1):
        m = _SECTION_RE.match(line)
        if m:
            if current is not None:
                d.sections[current] = "\n".join(body).strip("\n")
            name, app = m.group(1).lower(), m.group(2) or ""
            if name not in KNOWN_SECTIONS:
                raise DefError(f"{path}:{n}: unknown section %{name}")
            if name in APP_SECTIONS and not app:
                raise DefError(f"{path}:{n}: %{name} needs an app name")
            if name not in APP_SECTIONS and app:
                raise DefError(f"{path}:{n}: %{name} takes no name ('{app}')")
            if (name, app) in d.sections:
                raise DefError(f"{path}:{n}: %{name} {app} appears twice")
            current, body = (name, app), []
        elif current is None:
            stripped = line.strip()
            if not stripped or stripped.startswith("#"):
                continue
            key, sep, value = stripped.partition(":")
            if not sep or key.strip().lower() not in KNOWN_HEADERS:
                raise DefError(f"{path}:{n}: '{stripped}' is not a header line")
            d.header[key.strip().lower()] = value.strip()
        else:
            body.append(line)
    if current is not None:
        d.sections[current] = "\n".join(body).strip("\n")
    if "bootstrap" not in d.header:
        raise DefError(f"{path}: no Bootstrap: header")
    return d


def main(argv: list[str]) -> int:
    build_args: dict[str, str] = {}
    while len(argv) >= 2 and argv[0] == "--build-arg":
        key, sep, value = argv[1].partition("=")
        if not sep:
            print(
                f"deffile: --build-arg {argv[1]}: expected NAME=VALUE", file=sys.stderr
            )
            return 2
        build_args[key] = value
        argv = argv[2:]
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    recipe, cmd, rest = argv[0], argv[1], argv[2:]
    try:
        d = parse(recipe, build_args)
        if cmd == "header":
            print(d.header.get(rest[0].lower(), ""))
        elif cmd == "section":
            body = d.section(rest[0].lower(), rest[1] if len(rest) > 1 else "")
            if body:
                print(body)
        elif cmd == "files":
            for src, dst in d.files():
                print(f"{src}\t{dst}")
        elif cmd == "labels":
            print(json.dumps(d.labels(), indent=2, sort_keys=True))
        elif cmd == "environment":
            for key, value in d.environment().items():
                print(f"{key}={value}")
        elif cmd == "check":
            d.files()
            d.labels()
            d.environment()
        else:
            print(f"deffile: unknown command '{cmd}'", file=sys.stderr)
            return 2
    except (DefError, OSError, IndexError) as e:
        print(f"deffile: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
