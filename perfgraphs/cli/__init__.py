"""The ``perfgraphs`` command line. Each sub-command lives in its own module with
``register(subparsers)``; errors caused by input become one line on stderr and exit code 2."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import warnings

from perfgraphs.errors import PerfgraphsError

# Sub-command modules, in the order they appear in --help.
COMMAND_MODULES = ("perfgraphs.cli.graph_cmd", "perfgraphs.cli.collect_cmd", "perfgraphs.cli.datasets_cmd",
                   "perfgraphs.cli.benchmark_cmd", "perfgraphs.cli.quickstart_cmd",
                   "perfgraphs.cli.submit_cmd", "perfgraphs.cli.leaderboard_cmd",
                   "perfgraphs.cli.predict_cmd", "perfgraphs.cli.serve_cmd")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, not argparse's usage block
        print(f"perfgraphs: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="perfgraphs", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                continue  # a command not present in this version
            raise
        module.register(sub)
    return parser


def _one_line_warning(message, category, filename, lineno, file=None, line=None) -> None:
    # a user sees what the library warns about, not the source line that warned
    print(f"perfgraphs: warning: {message}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    warnings.showwarning = _one_line_warning
    try:
        return int(args.func(args) or 0)
    except PerfgraphsError as exc:
        print(f"perfgraphs: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("perfgraphs: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # never a traceback for users; PERFGRAPHS_DEBUG=1 shows it
        if os.environ.get("PERFGRAPHS_DEBUG"):
            raise
        message = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else ""
        print(f"perfgraphs: internal error: {type(exc).__name__}: {message} "
              f"(set PERFGRAPHS_DEBUG=1 for details)", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
