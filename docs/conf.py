"""Sphinx configuration of the skrank documentation.

Build: ``python -m sphinx -W --keep-going -b html docs docs/_build/html`` (``make docs``).
The build needs no network: intersphinx has no inventories to fetch.

The API reference (``api.rst``) uses a small local directive, ``skrank-module``, that
documents a public module only when it imports and has public names, so the reference
grows as subpackages land and never fails on a module that is not there yet.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
from pathlib import Path
from typing import ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.directives.other import TocTree
from sphinx.transforms import SphinxTransform
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

_ROOT = Path(__file__).resolve().parent.parent
# skrank is installed editable in the project's virtual environment; this keeps a plain
# checkout buildable too.
if str(_ROOT / "src") not in sys.path:
    sys.path.insert(0, str(_ROOT / "src"))

import skrank  # noqa: E402

# -- Project -------------------------------------------------------------------------------

project = "skrank"
author = "skrank developers"
copyright = "skrank developers"
release = skrank.__version__
version = ".".join(release.split(".")[:2])

# -- General -------------------------------------------------------------------------------

extensions = [
    "numpydoc",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
]
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "api/generated"]
templates_path: list[str] = []
root_doc = "index"
nitpicky = False
default_role = "literal"
pygments_style = "sphinx"

# No network at build time: no inventories are fetched.
intersphinx_mapping: dict[str, tuple[str, str | None]] = {}

# autodoc / autosummary / numpydoc
autodoc_typehints = "none"  # numpydoc's Parameters sections carry the types
autodoc_member_order = "bysource"
autosummary_generate = False  # no stub pages: api.rst documents every name itself
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# -- HTML ----------------------------------------------------------------------------------

html_theme = "alabaster"
html_title = f"skrank {release}"
html_theme_options = {
    "description": "Convention-explicit ranking evaluation",
    "fixed_sidebar": True,
    # with custom.css, a code block holds 100 columns (skrank eval's tables) on one line;
    # longer lines wrap
    "page_width": "1160px",
    "sidebar_width": "240px",
}
html_static_path = ["_static"]
html_css_files = ["custom.css"]
html_show_sourcelink = False

# -- No e-mail autolinks ------------------------------------------------------------------
#
# docutils turns any ``name@host`` in prose into a ``mailto:`` link, so "NDCG@10" and
# "ap@10" became e-mail links. The docs hold no e-mail address: a standalone address is
# made plain text again. Explicit links (```text <mailto:...>`_``) have a name and stay.


def unlink_standalone_emails(doctree: nodes.Node) -> int:
    """Replace the ``mailto:`` references docutils recognised in running text by their text.

    Returns how many were replaced (``tests/test_docs.py`` applies it to a plain docutils
    parse of every page).
    """
    count = 0
    for ref in list(doctree.findall(nodes.reference)):
        if ref.get("refuri", "").startswith("mailto:") and not ref.get("name"):
            ref.parent.replace(ref, nodes.Text(ref.astext()))
            count += 1
    return count


class _UnlinkStandaloneEmails(SphinxTransform):
    default_priority = 100  # before references are resolved

    def apply(self, **kwargs) -> None:
        unlink_standalone_emails(self.document)


# -- The API directive ---------------------------------------------------------------------

_logger = logging.getLogger(__name__)


def _kind(obj: object) -> str:
    if inspect.isclass(obj):
        return "exception" if issubclass(obj, BaseException) else "class"
    if inspect.isfunction(obj) or inspect.isbuiltin(obj) or callable(obj):
        return "function"
    return "data"


class SkrankModuleDirective(SphinxDirective):
    """Document the public names (``__all__``) of a module, if it imports.

    Usage::

        .. skrank-module:: skrank.stats
           :title: Statistics

           Paired comparisons: paired_test bootstrap_ci
           Everything else: *

    Each content line is ``Group title: name name ...``; ``*`` stands for every public name
    not listed in an earlier group. Without content, one group holds every public name.
    Names that the module does not (yet) export are skipped; groups left empty are not
    shown; a module that does not import, or exports nothing, produces nothing.
    """

    required_arguments = 1
    has_content = True
    option_spec: ClassVar[dict] = {"title": directives.unchanged, "exclude": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        modname = self.arguments[0]
        try:
            module = importlib.import_module(modname)
        except Exception as exc:  # a subpackage that is not there (yet) is simply left out
            _logger.info("skrank-module: %s left out of the API reference (%s)", modname, exc)
            return []
        exclude = set(self.options.get("exclude", "").split())
        public = [
            n for n in getattr(module, "__all__", ())
            if not n.startswith("_") and n not in exclude and hasattr(module, n)
        ]
        if not public:
            return []

        groups: list[tuple[str, list[str]]] = []
        claimed: set[str] = set()
        spec = [line for line in self.content if line.strip()] or ["*"]
        for line in spec:
            title, _, names = line.rpartition(":") if ":" in line else ("", "", line)
            wanted = names.split()
            if wanted == ["*"]:
                chosen = [n for n in public if n not in claimed]
            else:
                chosen = [n for n in wanted if n in public and n not in claimed]
            claimed.update(chosen)
            if chosen:
                groups.append((title.strip(), chosen))

        # A function or class re-exported by several modules is documented once, under the
        # first module on the page; later modules link to it.
        documented = self.env.temp_data.setdefault("skrank_api_documented", {})
        title = self.options.get("title", modname)
        heading = f"``{modname}``: {title}" if title != modname else f"``{modname}``"
        lines = [heading, "-" * (len(heading) + 4), ""]
        lines += [f".. automodule:: {modname}", "   :no-members:", ""]
        elsewhere: list[tuple[str, str]] = []
        for group_title, names in groups:
            own = []
            for n in names:
                obj = getattr(module, n)
                if _kind(obj) != "data" and id(obj) in documented:
                    elsewhere.append((n, documented[id(obj)]))
                else:
                    own.append(n)
                    if _kind(obj) != "data":
                        documented[id(obj)] = f"{modname}.{n}"
            if not own:
                continue
            if group_title:
                lines += [group_title, "~" * (len(group_title) + 4), ""]
            lines += [".. autosummary::", "   :nosignatures:", ""]
            lines += [f"   {n}" for n in own]
            lines.append("")
            for n in own:
                kind = _kind(getattr(module, n))
                lines.append(f".. auto{kind}:: {modname}.{n}")
                if kind in ("class", "exception"):
                    lines.append("   :members:")
                lines.append("")
        if elsewhere:
            links = ", ".join(f":py:obj:`{n} <{full}>`" for n, full in elsewhere)
            lines += [f"Also in ``{modname}``, documented above: {links}.", ""]

        container = nodes.section()
        container.document = self.state.document
        source = self.get_source_info()[0]
        content = StringList()
        for i, line in enumerate(lines):
            content.append(line, source, self.lineno + i)
        nested_parse_with_titles(self.state, content, container)
        return list(container.children)


class SkrankTocTree(TocTree):
    """A toctree that lists only the pages that exist (other pages are being written).

    Entries are plain document names. An entry ``*`` stands for every page of the docs
    folder not listed in an earlier ``skrank-toctree`` of the same page (nor the page
    itself), so a new page is never left outside the navigation.
    """

    def run(self) -> list[nodes.Node]:
        found = self.env.found_docs
        listed = self.env.temp_data.setdefault("skrank_toctree_listed", set())
        entries: list[str] = []
        for raw in self.content:
            entry = raw.strip()
            if not entry:
                continue
            if entry == "*":
                rest = sorted(found - listed - {self.env.docname} - set(entries))
                entries += [d for d in rest if d != "index"]
            elif entry in found:
                entries.append(entry)
        listed.update(entries)
        if not entries:
            return []
        self.content = StringList(entries, source=self.get_source_info()[0])
        return super().run()


def _strip_private_parameters(app, what, name, obj, options, signature, return_annotation):
    """Leave parameters whose names start with ``_`` out of documented signatures."""
    if what != "function" or signature is None or "_" not in signature:
        return None
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    params = [
        p.replace(annotation=inspect.Parameter.empty)
        for p in sig.parameters.values()
        if not p.name.startswith("_")
    ]
    if len(params) == len(sig.parameters):
        return None
    new = sig.replace(parameters=params, return_annotation=inspect.Signature.empty)
    return str(new), return_annotation


_GENERATED_MEMBER = re.compile(r"^set_\w+_request$")


def _skip_generated_members(app, what, name, obj, skip, options):
    """Leave out scikit-learn's generated ``set_*_request`` methods (metadata routing).

    scikit-learn adds them to every estimator that takes metadata; their docstrings refer to
    scikit-learn's own glossary. The user guide explains routing instead.
    """
    if what in ("class", "exception") and _GENERATED_MEMBER.match(name):
        return True
    return None


def setup(app):
    app.add_transform(_UnlinkStandaloneEmails)
    app.add_directive("skrank-module", SkrankModuleDirective)
    app.add_directive("skrank-toctree", SkrankTocTree)
    app.connect("autodoc-process-signature", _strip_private_parameters)
    app.connect("autodoc-skip-member", _skip_generated_members)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

