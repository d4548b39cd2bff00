"""``python -m ttanalyze`` and the ``ttanalyze`` script: the command line of :mod:`ttanalyze.cli`.

Ctrl-C at any moment, the imports included, ends the run with one line on
stderr and exit status 130 (files being written are left as they were:
:mod:`ttanalyze.fileio`).
"""

import signal
import sys


from .errors import Interrupted


def _on_sigint(signum, frame):
    raise Interrupted()


def main() -> None:
    """Console-script entry point."""
    signal.signal(signal.SIGINT, _on_sigint)
    try:
        from .cli import main as cli_main

        cli_main()
    except (Interrupted, KeyboardInterrupt):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        print("ttanalyze: interrupted", file=sys.stderr)
        sys.exit(130)


if __name__ == "__main__":
    main()
