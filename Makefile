# The two commands of the README. Both set everything up first (idempotent).
VENV ?= .venv
# Extra options of `coevo demo`, e.g. `make demo DEMO_ARGS=--fresh` to train again from scratch.
DEMO_ARGS ?=

.PHONY: demo test check bootstrap bench

bootstrap:
	@COEVO_VENV=$(VENV) bash scripts/bootstrap.sh

demo: bootstrap
	$(VENV)/bin/coevo demo $(DEMO_ARGS)

test: bootstrap
	$(VENV)/bin/python -m pytest -q -rs -p no:cacheprovider

# The lint and type gate (ruff, mypy; configured in pyproject.toml).
check: bootstrap
	@VENV=$(VENV) bash scripts/check.sh

bench: bootstrap
	for b in bench/*.py; do $(VENV)/bin/python $$b --json || exit 1; done
