# The two commands of the README. Both set everything up first (idempotent).
VENV ?= .venv

.PHONY: demo test bootstrap bench

bootstrap:
	@COEVO_VENV=$(VENV) bash scripts/bootstrap.sh

demo: bootstrap
	$(VENV)/bin/coevo demo

test: bootstrap
	$(VENV)/bin/python -m pytest -q -p no:cacheprovider

bench: bootstrap
	for b in bench/*.py; do $(VENV)/bin/python $$b --json || exit 1; done
