"""The package's version, in a module of its own so that any floor can read it without
importing the package's root (which names every floor)."""

__version__ = "0.1.0"
