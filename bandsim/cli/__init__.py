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
import sys

from .._version import __version__
from ..errors import ConfigError
from ..studies.store import StudyFailed
from . import audit, instances, listing, plugin, results, run, studies, suite
from .common import Parser, wide_console


def build_parser():
    """The argument parser of every command (plug-ins loaded first)."""

    parser = Parser(
        prog="bandsim",
        description="Fast, exact Monte Carlo simulation of differentially private bandits.")
    parser.add_argument("--version", action="version", version=f"bandsim {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="algorithms, mechanisms, instances and figures")
    run.add_parser(sub)
    studies.add_parsers(sub)
    instances.add_parser(sub)
    audit.add_parser(sub)
    suite.add_parser(sub)
    plugin.add_parser(sub)
    results.add_parsers(sub)  # results, plot; --overwrite, --dpi, --xscale on studies
    return parser


COMMANDS = {"list": lambda args, console: listing.cmd_list(wide_console()),
            "run": run.cmd_run, "reproduce": studies.cmd_reproduce, "sweep": studies.cmd_sweep,
            "instances": instances.cmd_instances, "audit": audit.cmd_audit,
            "suite": suite.cmd_suite, "plugin": plugin.cmd_plugin, **results.DISPATCH}


def main(argv=None):
    """Entry point of the ``bandsim`` console script; returns the exit status."""
    console = wide_console(stderr=True)
    try:
        args = build_parser().parse_args(argv)
        return COMMANDS[args.command](args, console)
    except StudyFailed as e:  # one line: what failed, done, left, the command that resumes
        return results.failed(e, argv, console)
    except ConfigError as e:
        console.print(f"[bold red]error:[/] {e}", highlight=False, soft_wrap=True)  # one line
        return 2
    except KeyboardInterrupt as e:  # one line: done, left, the command that resumes
        return results.interrupted(e, argv, console)
    except BrokenPipeError:  # e.g. `bandsim … --json | head`: the reader left, quietly
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
