"""Entry point: ``python -m benchmarks [--quick]``."""

from .run import main

raise SystemExit(main())
