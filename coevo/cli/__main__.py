"""`python -m coevo.cli ...` — the same as the `coevo` script (used by the launcher)."""

from coevo.cli import main

main()
