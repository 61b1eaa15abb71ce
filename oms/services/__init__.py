"""The services: what oms does, one package per capability, each above the layers it uses.

docs/architecture.md ("Packages") says what each package owns and which may import which;
pyproject.toml's import-linter contracts hold them to it.
"""
