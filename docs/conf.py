"""Sphinx configuration for the pe_symbolic documentation.

Build with ``make docs`` (``sphinx -W --keep-going -n``: warnings are errors, every
cross-reference must resolve). Generated at build time, never committed:

* the theory pages, one per registered theorem, by ``_ext/pe_docs.py`` into ``theory/generated/``;
* the audit's bounds as Coq theorems (a table and one theorem, included by the accuracy and
  Coq how-tos), by ``_ext/pe_docs.py`` into ``howto/generated/``;
* the tutorials, a sphinx-gallery of the scripts in ``../derivations/`` (run on every build,
  output captured, ``.py``/``.ipynb`` downloads, thumbnails from their figures) into
  ``auto_examples/``;
* the pictures, by the matplotlib plot directive from ``pyplots/``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))

import pe_symbolic  # noqa: E402

project = "pe_symbolic"
author = "pe_symbolic developers"
copyright = "2026, pe_symbolic developers"  # noqa: A001
release = version = pe_symbolic.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "numpydoc",
    "sphinx.ext.mathjax",
    "sphinx_proof",
    "matplotlib.sphinxext.plot_directive",
    "sphinx_gallery.gen_gallery",
    "pe_docs",
]

# MathJax without a network: the MathJax 3 files shipped in the `sphinx-mathjax-offline`
# wheel (PyPI) are copied into the built site and used instead of the CDN. Without that
# package the pages still build and load MathJax from its CDN (needs a network to render).
if importlib.util.find_spec("sphinx-mathjax-offline") is not None:
    extensions.append("sphinx-mathjax-offline")

source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "theory/generated/_*", "howto/generated/_*", ".gitignore"]
nitpicky = True
# Signatures omit type hints (numpydoc sections carry the types as text), so third-party types
# in signatures are never cross-referenced. The few third-party and standard-library objects
# that docstrings name explicitly cannot resolve: intersphinx needs the projects' inventories,
# and the build machines have no network to fetch them. Only those are ignored.
nitpick_ignore = [
    ("py:func", "sympy.sympify"),  # proof.check_identity
    ("py:func", "mpmath.workdps"),  # lower (module docstring)
    ("py:class", "mpmath.mpf"),  # reference (module docstring)
    ("py:func", "functools.lru_cache"),  # lower (module docstring); Python standard library
    # the types of dataclass fields and module data, which autodoc prints from annotations
    # even with autodoc_typehints = "none" (engines' recipes, the kernel's tables)
    ("py:class", "collections.abc.Callable"),
    ("py:class", "collections.abc.Iterable"),
    ("py:class", "sympy.core.expr.Expr"),
    ("py:class", "sympy.tensor.indexed.Indexed"),
]

# --- MyST ---------------------------------------------------------------------------
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
myst_dmath_double_inline = True

# --- autodoc + numpydoc -------------------------------------------------------------
autodoc_typehints = "none"
autodoc_preserve_defaults = True  # `dtype=np.float64`, not `dtype=<class ...>`
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()

# --- sphinx-proof -------------------------------------------------------------------
proof_minimal_theme = False

# --- tutorials: a sphinx-gallery of ../derivations/ -------------------------------------
# Every script is run on every build (``run_stale_examples``: its output depends on the
# package, not only on the script), in reading order (``pe_docs_gen.DerivationOrder``). A
# script whose results are not the expected ones raises, and that fails the build.
sphinx_gallery_conf = {
    "examples_dirs": "../derivations",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/[^_/][^/]*\.py$",  # execute every script ...
    "ignore_pattern": r"^_",  # ... but not the shared helpers (_common.py; matched on the name)
    "within_subsection_order": "pe_docs_gen.DerivationOrder",
    "run_stale_examples": True,
    "abort_on_example_error": False,
    "only_warn_on_example_error": False,
    "capture_repr": (),
    "remove_config_comments": True,
    "image_scrapers": ("matplotlib",),
    "matplotlib_animations": False,
    "download_all_examples": True,
    "show_memory": False,
    "min_reported_time": 1,
    "write_computation_times": False,
    "first_notebook_cell": ("# Needs the pe_symbolic package: pip install pe_symbolic (or, from a checkout, "
                            "pip install -e .)"),
}

# --- pictures: matplotlib plot directive (drawn at build time; no PNG is committed) --
plot_basedir = str(HERE / "pyplots")
plot_formats = [("png", 100)]
plot_html_show_formats = False
plot_html_show_source_link = True
plot_include_source = False
plot_pre_code = "import numpy as np\nimport matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\nnp.random.seed(0)\n"
plot_rcparams = {"figure.dpi": 100, "savefig.bbox": "tight", "font.size": 10}

# --- HTML -----------------------------------------------------------------------------
# The theme of the NumPy, SciPy, pandas, JAX and SymPy-adjacent docs: wide content column,
# page outline on the right, light and dark modes.
html_theme = "pydata_sphinx_theme"
html_title = "pe_symbolic"
html_static_path = ["_static"]
html_css_files = ["custom.css"]
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_sidebars = {"**": ["sidebar-nav-bs"]}

# --- MathJax ----------------------------------------------------------------------------
# Environments the docstrings use that MathJax does not define (mathtools' psmallmatrix).
# A proof step of an 8x8 matrix, broken into lines, is one display of more than MathJax's
# default 5 KiB of TeX ("internal buffer size exceeded"): allow 200 KiB.
mathjax3_config = {
    "tex": {
        "maxBuffer": 200 * 1024,
        "environments": {"psmallmatrix": [r"\left(\begin{smallmatrix}", r"\end{smallmatrix}\right)"]},
    },
}
