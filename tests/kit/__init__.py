"""The test kit: what every suite of the repository (tests/, clients/python/tests,
packaging/tests), docs/ and the bench use to start real servers and look at them.

Importable as `kit` from the repository root: pytest.ini puts tests/ on the path for every
suite, and the Makefile runs docs/ and the bench with PYTHONPATH=tests.
"""
