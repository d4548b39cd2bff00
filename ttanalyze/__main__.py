"""``python -m ttanalyze`` and the ``ttanalyze`` script: the command line of :mod:`ttanalyze.cli`.

Ctrl-C at any moment, the imports included, ends the run with one line on
stderr and exit status 130 (files being written are left as they were:
:mod:`ttanalyze.fileio`).

A finished command ends the process with ``os._exit`` after the exit handlers
and a flush of stdout and stderr: the interpreter's own shutdown would free the
analysis object by object and every module (0.13 s of CPU after a 50,000-op
``check``), work a process that ends need not do (mypy ends the same way).
"""

import atexit
import os
import signal
import sys


from .errors import Interrupted


def _on_sigint(signum, frame):
    raise Interrupted()


def main() -> None:
    """Console-script entry point."""
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
