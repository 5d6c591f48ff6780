"""Sphinx configuration of bandsim's API reference (``make docs``; warnings are errors)."""
project = "bandsim"
extensions = ["sphinx.ext.autodoc", "numpydoc", "myst_parser"]
#: The Markdown guides of docs/ enter the site through docs/api/guides/*.md (MyST
#: ``{include}`` stubs: the guides stay where the test suite runs their examples).
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
myst_heading_anchors = 3
numpydoc_show_class_members = False
numpydoc_validation_checks = set()
autodoc_typehints = "none"  # the numpydoc sections give types, units and shapes
autodoc_member_order = "bysource"
exclude_patterns = ["_build"]
html_theme = "alabaster"
suppress_warnings = ["ref.python"]
