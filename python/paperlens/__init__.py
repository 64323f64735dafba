"""paperlens: the Python SDK of the paperlens scholarly literature platform."""

from paperlens._paperlens import __version__

__all__ = ["__version__"]
