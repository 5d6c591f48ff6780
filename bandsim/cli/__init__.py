"""The ``bandsim`` command line.

One module per command group: :mod:`~bandsim.cli.run`,
:mod:`~bandsim.cli.listing`, :mod:`~bandsim.cli.studies` (``reproduce``,
``sweep``), :mod:`~bandsim.cli.results` (``results``, ``plot``),
:mod:`~bandsim.cli.suite`, :mod:`~bandsim.cli.instances`,
:mod:`~bandsim.cli.audit` and :mod:`~bandsim.cli.plugin` (``plugin check``).
Flags for algorithm parameters are generated from the registered
declarations, so plug-ins get theirs too. Bad input exits with status 2 and
one line naming the field and its allowed range.
"""
import argparse
import sys
import textwrap

from .._version import __version__
from ..errors import ConfigError, check_numba_environment
from ..studies import reproduce as _reproduce, sweep as _sweep
from ..studies.store import StudyFailed
from . import audit, instances, listing, plugin, results, run, studies, suite
from .common import Parser, plain, wide_console


def build_parser():
    """The argument parser of every command (plug-ins loaded first).

    Returns
    -------
    argparse.ArgumentParser
    """
    parser = Parser(
        prog="bandsim",
        description="Fast, exact Monte Carlo simulation of differentially private bandits.")
    parser.add_argument("--version", action="version", version=f"bandsim {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    lst = sub.add_parser("list", help="algorithms, mechanisms, instances and figures")
    lst.add_argument("--json", action="store_true", help="print one JSON list of entries")
    run.add_parser(sub)
    studies.add_parsers(sub)
    instances.add_parser(sub)
    audit.add_parser(sub)
    suite.add_parser(sub)
    plugin.add_parser(sub)
    results.add_parsers(sub)  # results, plot; --overwrite, --dpi, --xscale on studies
    describe(sub)
    return parser


def _descriptions():
    """Command → the module docstring that describes it (shown by ``--help``)."""
    return {"list": listing.__doc__, "run": run.__doc__, "reproduce": _reproduce.__doc__,
            "sweep": _sweep.__doc__, "instances": instances.__doc__, "audit": audit.__doc__,
            "suite": suite.__doc__, "plugin": plugin.__doc__, "results": _wrap(results.PLOT_HELP["results"]),
            "plot": _wrap(results.PLOT_HELP["plot"])}


def _wrap(text, width=78):
    return "\n".join(textwrap.fill(line, width) for line in text.split("\n"))


def describe(sub):
    """Give every subcommand without a description its module's text (``bandsim X --help``).

    Parameters
    ----------
    sub : argparse._SubParsersAction
    """
    docs = _descriptions()
    for name, p in sub.choices.items():
        p.formatter_class = argparse.RawDescriptionHelpFormatter
        if not p.description or len(p.description) < 40:
            p.description = (docs.get(name) or p.description or "").strip() or None


COMMANDS = {"list": listing.cmd_list,
            "run": run.cmd_run, "reproduce": studies.cmd_reproduce, "sweep": studies.cmd_sweep,
            "instances": instances.cmd_instances, "audit": audit.cmd_audit,
            "suite": suite.cmd_suite, "plugin": plugin.cmd_plugin, **results.DISPATCH}


def main(argv=None):
    """Entry point of the ``bandsim`` console script.

    Parameters
    ----------
    argv : list of str, optional
        Arguments (default ``sys.argv[1:]``).

    Returns
    -------
    int
        Exit status: 0 success, 1 a failed audit or broken pipe, 2 bad input
        (one line on standard error), 130 interrupted.
    """
    console = wide_console(stderr=True)
    try:
        args = build_parser().parse_args(argv)
        check_numba_environment()
        return COMMANDS[args.command](args, console)
    except StudyFailed as e:  # one line: what failed, done, left, the command that resumes
        return results.failed(e, argv, console)
    except ConfigError as e:
        console.print(f"[bold red]error:[/] {plain(e)}", highlight=False, soft_wrap=True)
        return 2
    except KeyboardInterrupt as e:  # one line: done, left, the command that resumes
        return results.interrupted(e, argv, console)
    except BrokenPipeError:  # e.g. `bandsim … --json | head`: the reader left, quietly
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
