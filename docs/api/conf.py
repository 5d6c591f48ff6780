"""Sphinx configuration of bandsim's API reference (``make docs``; warnings are errors)."""
project = "bandsim"
extensions = ["sphinx.ext.autodoc", "numpydoc"]
numpydoc_show_class_members = False
numpydoc_validation_checks = set()
autodoc_typehints = "none"  # the numpydoc sections give types, units and shapes
autodoc_member_order = "bysource"
exclude_patterns = ["_build"]
html_theme = "alabaster"
suppress_warnings = ["ref.python"]
