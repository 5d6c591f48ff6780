"""numpydoc sections on every public function of the API and the command line.

numpydoc's own validator (``numpydoc.validate``) checks each function: a
docstring (GL08), every parameter documented (PR01) and no unknown one
(PR02), and a Returns section when the function returns a value (RT01).
"""
import importlib
import inspect
import pkgutil

import pytest

numpydoc_validate = pytest.importorskip("numpydoc.validate")

pytestmark = pytest.mark.fast

CHECKED = {"GL08", "PR01", "PR02", "RT01"}
API_MODULES = ["bandsim.studies.plots", "bandsim.studies.plotdir", "bandsim.studies.bounds",
               "bandsim.studies.reproduce", "bandsim.resources", "bandsim.errors",
               "bandsim.runner", "bandsim.results", "bandsim.instances", "bandsim.datasets.files"]


def _public_functions():
    import bandsim.cli

    mods = [bandsim.cli] + [importlib.import_module(f"bandsim.cli.{m.name}")
                            for m in pkgutil.iter_modules(bandsim.cli.__path__)
                            if m.name != "__main__"]
    mods += [importlib.import_module(m) for m in API_MODULES]
    names = []
    for mod in mods:
        for n, obj in vars(mod).items():
            if not n.startswith("_") and inspect.isfunction(obj) and obj.__module__ == mod.__name__:
                names.append(f"{mod.__name__}.{n}")
    names += ["bandsim.simulate", "bandsim.register", "bandsim.runner.prepare"]
    # the public kernel API (Numba dispatchers: numpydoc reads their py_func)
    import bandsim.backend

    names += [f"bandsim.backend.{n}" for n in bandsim.backend.FUNCTIONS]
    names += [f"bandsim.results.Result.{n}" for n in vars(bandsim.Result)
              if not n.startswith("_") and callable(getattr(bandsim.Result, n))
              and n != "ARRAYS"]
    return names


def _backend_and_env():
    import bandsim.backend
    import bandsim.env

    names = [f"bandsim.backend.{n}" for n in bandsim.backend.__all__
             if hasattr(getattr(bandsim.backend, n), "py_func")]
    return names + ["bandsim.env.make", "bandsim.env.audit", "bandsim.env.loop_algorithm",
                    "bandsim.env.VecEnv.pull"]


@pytest.mark.parametrize("name", _backend_and_env())
def test_numpydoc_sections_of_the_backend_and_env(name):
    errors = [f"{code}: {msg}" for code, msg in numpydoc_validate.validate(name)["errors"]
              if code in CHECKED]
    assert not errors, errors


def test_the_checked_set_is_not_empty():
    names = _public_functions()
    assert len(names) > 60 and "bandsim.simulate" in names and "bandsim.cli.main" in names


@pytest.mark.parametrize("name", _public_functions())
def test_numpydoc_sections(name):
    errors = [f"{code}: {msg}" for code, msg in numpydoc_validate.validate(name)["errors"]
              if code in CHECKED]
    assert not errors, errors
