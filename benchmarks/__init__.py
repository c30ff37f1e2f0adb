"""Benchmarks of :mod:`pe_symbolic.numeric` (run ``python -m benchmarks [--quick]``).

Not collected by pytest. Every case prints the median wall time and its ratio to baselines
measured in the same run, says whether a comparison allocates its output or writes ``out=``,
and the accuracy section measures errors against the mpmath oracle.
"""
