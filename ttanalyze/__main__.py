"""``python -m ttanalyze`` and the ``ttanalyze`` script: the command line of :mod:`ttanalyze.cli`.

Ctrl-C at any moment, the imports included, ends the run with one line on
stderr and exit status 130 (files being written are left as they were:
:mod:`ttanalyze.fileio`).

A finished command ends the process with ``os._exit`` after the exit handlers
and a flush of stdout and stderr: the interpreter's own shutdown would free the
analysis object by object and every module (0.13 s of CPU after a 50,000-op
``check``), work a process that ends need not do (mypy ends the same way).

The cyclic garbage collector runs a generation-0 collection every
``GC_THRESHOLD[0]`` net allocations instead of CPython's 700: the imports of a
command (500-600 modules, their classes, functions and dataclasses) are
long-lived objects and next to no garbage, and collecting them every 700
allocations took 116 collections and 0.03-0.04 s of CPU in the start-up of a
small file's ``check``, 10 at 100,000 and 0.001 s (``gc.callbacks``; the analysis
itself runs with the collector paused, :func:`ttanalyze.batch.analysis_gc`).
Garbage cycles are still collected, every 100,000 allocations (mypy raises its
threshold alike).
"""

import atexit
import gc
import os
import signal
import sys


from .errors import Interrupted

GC_THRESHOLD = (100_000, 10, 10)  # generations 0, 1, 2 (CPython's default: 700, 10, 10)


def _on_sigint(signum, frame):
    raise Interrupted()


def main() -> None:
    """Console-script entry point."""
    gc.set_threshold(*GC_THRESHOLD)
    signal.signal(signal.SIGINT, _on_sigint)
    try:
        from . import batch
        from .cli import main as cli_main

        batch.keep_until_exit()
        try:
            cli_main()
        except SystemExit as exc:
            code = exc.code
        else:
            code = 0
    except (Interrupted, KeyboardInterrupt):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        print("ttanalyze: interrupted", file=sys.stderr)
        sys.exit(130)
    _exit(code)


def _exit(code) -> None:
    """End the process with ``code`` (a ``SystemExit`` code) as the interpreter would, without its shutdown.

    When stdout or stderr cannot be flushed (a closed pipe), the interpreter's own exit reports it instead.
    """
    if code is None:
        code = 0
    elif not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        sys.exit(code)
    os._exit(code)


if __name__ == "__main__":
    main()
