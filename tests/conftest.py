"""Makes this folder importable from the tests below it (pytest puts a conftest's folder on
sys.path), for helpers shared across folders: :mod:`cli_in_process`."""
