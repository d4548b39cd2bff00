"""ttanalyze: static analyzer and cost model for Tenstorrent TTNN IR."""

__version__ = "0.1.0"
