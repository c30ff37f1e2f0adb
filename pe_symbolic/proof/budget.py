"""Moved to :mod:`pe_symbolic.proof.kernel.budget` (the trusted kernel is one subpackage); this
module keeps the old import path working and defines nothing of its own."""

from .kernel.budget import *  # noqa: F401,F403
from .kernel.budget import __all__  # noqa: F401
