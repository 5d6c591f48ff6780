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

from .. import registry
from .._version import __version__
from ..atomic import failure_text
from ..errors import ConfigError, check_numba_environment
from ..studies import reproduce as _reproduce, sweep as _sweep
from ..studies.store import StudyFailed
from . import audit, bai, instances, listing, plugin, results, run, studies, suite
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
    parser.add_argument("--no-plugins", action="store_true",
                        help="load no installed plug-in (built-ins only): a broken or hanging "
                             "plug-in cannot stop bandsim")
    sub = parser.add_subparsers(dest="command", required=True)
    lst = sub.add_parser("list", help="algorithms, mechanisms, instances and figures")
    lst.add_argument("--json", action="store_true", help="print one JSON list of entries")
    run.add_parser(sub)
    studies.add_parsers(sub)
    instances.add_parser(sub)
    audit.add_parser(sub)
    suite.add_parser(sub)
    plugin.add_parser(sub)
    bai.add_parser(sub)
    results.add_parsers(sub)  # results, plot; --overwrite, --dpi, --xscale on studies
    describe(sub)
    return parser


def _descriptions():
    """Command → the module docstring that describes it (shown by ``--help``)."""
    return {"list": listing.__doc__, "run": run.__doc__, "reproduce": _reproduce.__doc__,
            "sweep": _sweep.__doc__, "instances": instances.__doc__, "audit": audit.__doc__,
            "suite": suite.__doc__, "bai": bai.__doc__, "plugin": plugin.__doc__, "results": _wrap(results.PLOT_HELP["results"]),
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
            "suite": suite.cmd_suite, "bai": bai.cmd_bai, "plugin": plugin.cmd_plugin, **results.DISPATCH}


#: How a write error on standard output names it.
STDOUT = "standard output"


class _NamedStdout:
    """``sys.stdout`` whose write errors name it: a full stdout is one line, not a traceback."""

    def __init__(self, stream):
        self._stream = stream
        self._failed = None  # the first write error, raised again by flush (argparse's
        #                      --version and --help swallow it)

    def _call(self, method, *args):
        try:
            return getattr(self._stream, method)(*args)
        except BrokenPipeError:
            raise
        except OSError as e:
            self._failed = self._failed or OSError(e.errno, e.strerror, STDOUT)
            raise self._failed from None

    def write(self, text):
        return self._call("write", text)

    def flush(self):
        self._call("flush")
        if self._failed is not None:
            raise self._failed

    def __getattr__(self, name):
        return getattr(self._stream, name)


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
        or a write that failed (one line on standard error naming the path or
        standard output and the cause: no space, read-only file system, …;
        :func:`bandsim.atomic.failure_text`), 130 interrupted.
    """
    console = wide_console(stderr=True)
    stdout, sys.stdout = sys.stdout, _NamedStdout(sys.stdout)
    try:
        try:
            code = _main(argv, console)
        except SystemExit:  # --help, --version: their text must reach stdout too
            sys.stdout.flush()
            raise
        sys.stdout.flush()  # a full stdout fails here, not at interpreter exit
        return code
    except BrokenPipeError:  # e.g. `bandsim … --json | head`: the reader left, quietly
        _detach_stdout(stdout)
        return 1
    except OSError as e:  # a full disk, a read-only file system, a full stdout
        if e.filename == STDOUT:
            _detach_stdout(stdout)
        where = STDOUT if e.filename == STDOUT else None
        console.print(f"[bold red]error:[/] {plain(failure_text(e, where))}", highlight=False,
                      soft_wrap=True)
        return 2
    finally:
        sys.stdout = stdout


def _detach_stdout(stream):
    """Point file descriptor 1 at /dev/null: what is left in the buffer cannot fail at exit."""
    import os

    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
    except (OSError, ValueError, AttributeError):  # not a real file (tests capture it)
        pass


def _main(argv, console):
    try:
        argv = sys.argv[1:] if argv is None else list(argv)
        args = _parse(argv)
        check_numba_environment()
        try:
            return COMMANDS[args.command](args, console)
        except ConfigError as e:  # a name checked against a list before plug-ins loaded
            if e.field not in _NAME_FIELDS or _mark() != "deferred":
                raise
            registry.plugins_loaded(False)  # load them and try again (nothing ran yet)
            return COMMANDS[args.command](build_parser().parse_args(argv), console)
    except StudyFailed as e:  # one line: what failed, done, left, the command that resumes
        return results.failed(e, argv, console)
    except ConfigError as e:
        console.print(f"[bold red]error:[/] {plain(e)}", highlight=False, soft_wrap=True)
        return 2
    except KeyboardInterrupt as e:  # one line: done, left, the command that resumes
        return results.interrupted(e, argv, console)
    finally:
        if _mark() == "deferred":  # a caller in this process loads plug-ins as before
            registry.plugins_loaded(False)


def _mark():
    """The registry's plug-in mark (False, True or "deferred"), left as it is."""
    mark = registry.plugins_loaded(True)
    registry.plugins_loaded(mark)
    return mark


#: Fields of a ConfigError that may name a plug-in's declaration not loaded yet.
_NAME_FIELDS = ("algorithm", "mechanism")

#: Commands that show or rank every registered declaration, plug-ins included.
_WANT_PLUGINS = ("list", "plugin", "suite")


def _parse(argv):
    """Parse ``argv``, loading installed plug-ins only when the command line needs them.

    ``--no-plugins`` (anywhere on the line) loads none. Otherwise ``list``, ``plugin``, ``suite`` and
    ``--help`` load them; any other command line is parsed with the built-ins alone
    first (so ``--version`` or ``run dp-se`` never imports a plug-in), and
    only a line that does not parse so (a plug-in's flag) is parsed again
    with them. A name that is not built in loads them when it is looked up
    (:func:`bandsim.registry.get_algorithm`).
    """
    words = [a for a in argv if not a.startswith("-")]
    if "--no-plugins" in argv:  # a global switch, before or after the command
        argv = ["--no-plugins"] + [a for a in argv if a != "--no-plugins"]
        registry.plugins_loaded()
    elif not (words and words[0] in _WANT_PLUGINS) and not {"-h", "--help"} & set(argv):
        was = registry.plugins_loaded()
        try:
            args = build_parser().parse_args(argv)
            registry.plugins_loaded("deferred" if was is False else was)
            return args
        except ConfigError:
            registry.plugins_loaded(was)
        except BaseException:  # --version, an interrupt
            registry.plugins_loaded(was)
            raise
    return build_parser().parse_args(argv)


if __name__ == "__main__":
    sys.exit(main())
