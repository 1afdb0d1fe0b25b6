# IrisRAG: `make run` sets everything up and starts web + worker + Redis; `make test` runs the suite.
VENV   ?= .venv
PY     := $(VENV)/bin/python
PYTHON ?= python3

.PHONY: run setup install test lint bench translations readme

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	@echo "Installing IrisRAG into $(VENV) (quietly; this takes a few minutes the first time)..."
	$(PY) -m pip install -q -q --disable-pip-version-check -U pip
	$(PY) -m pip install -q -q --disable-pip-version-check -e '.[dev]'
	touch $@

install: $(VENV)/.installed

translations: install
	@$(VENV)/bin/pybabel -q compile -d irisrag/translations

setup: install translations
	@bash scripts/word_list.sh
	@$(PY) scripts/setup_instance.py

# The admin password and the URLs come last, in a box, once the web server answers (scripts/welcome.py).
run: setup
	$(VENV)/bin/honcho start -f Procfile

test: install translations
	bash scripts/test.sh $(ARGS)

lint: install
	$(VENV)/bin/ruff check .

readme: install
	$(PY) scripts/readme_settings.py

.PHONY: translations-update
translations-update: install
	$(VENV)/bin/pybabel extract -F babel.cfg -k N_ -k _l -k lazy_gettext -o irisrag/translations/messages.pot irisrag templates
	$(VENV)/bin/pybabel update -i irisrag/translations/messages.pot -d irisrag/translations -l de
