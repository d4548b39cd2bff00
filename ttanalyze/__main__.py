"""``python -m ttanalyze``: the same command line as the ``ttanalyze`` script."""

from .cli import main

main()
