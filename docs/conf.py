"""Sphinx configuration of the rapids-balance documentation.

Build: ``python -m sphinx -W --keep-going -b html docs docs/_build/html``
(``pip install -e '.[docs]'`` first).  The example gallery runs the scripts
in ``examples/`` except the Dask ones, which start clusters.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import rapids_balance

ROOT = Path(__file__).resolve().parents[1]
# the examples import their shared helper (examples/_extras.py) as a top-level module
sys.path.insert(0, str(ROOT / "examples"))
# the examples show CPU results; never the GPU simulator a test run may have switched on
os.environ.pop("NUMBA_ENABLE_CUDASIM", None)

project = "rapids-balance"
author = "rapids-balance contributors"
copyright = "rapids-balance contributors, Apache-2.0"
release = rapids_balance.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "sg_execution_times.rst", "**.ipynb_checkpoints"]
templates_path = ["_templates"]

# API reference: one generated page per public name (docs/api/generated, not committed)
autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"          # numpydoc's Parameters section says the types
autodoc_member_order = "bysource"
numpydoc_show_class_members = False  # classes list their members through the class template
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_xref_param_type = False

myst_heading_anchors = 3

sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    # run every example except those that start Dask clusters; those are shown, not run
    "filename_pattern": r"/(?!distributed_)[a-z][a-z_]*\.py$",
    "ignore_pattern": r"__init__\.py|_extras\.py",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "capture_repr": (),
    "show_memory": False,
    "plot_gallery": "True",
}

html_theme = "pydata_sphinx_theme"
html_title = f"rapids-balance {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
}
html_static_path: list[str] = []
html_show_sourcelink = False
