"""A read-only install, used by an account whose home is not writable either, imports and runs.

numba refuses to define a ``cache=True`` kernel when neither the module's
``__pycache__`` nor its user cache folder can be written ("no locator
available"), which made ``import rapids_balance`` (and ``--help``) fail.
Simulated in a subprocess on a copy of the package whose ``__pycache__``
entries are files (so even root cannot write there) and a home whose
``.cache`` is a file.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

import rapids_balance


@pytest.fixture
def readonly_install(tmp_path):
    site = tmp_path / "site"
    pkg = site / "rapids_balance"
    shutil.copytree(os.path.dirname(rapids_balance.__file__), pkg,
                    ignore=shutil.ignore_patterns("__pycache__", "data"))
    for folder, _, _ in os.walk(pkg):
        with open(os.path.join(folder, "__pycache__"), "w"):
            pass  # a file: no cache folder can be created there
    (pkg / "data").mkdir()
    home = tmp_path / "home"
    home.mkdir()
    (home / ".cache").write_text("not a folder\n")
    temp = tmp_path / "tmp"
    temp.mkdir()
    for folder, dirs, files in os.walk(site):
        os.chmod(folder, 0o555)
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME", "PYTHONPATH")}
    env.update(HOME=str(home), TMPDIR=str(temp), PYTHONPATH=str(site), PYTHONDONTWRITEBYTECODE="1")
    yield site, env, temp
    for folder, _, _ in os.walk(site):
        os.chmod(folder, 0o755)


def _run(env, cwd, *args):
    return subprocess.run([sys.executable, *args], env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def test_readonly_install_imports_and_caches_per_user(readonly_install, tmp_path):
    site, env, temp = readonly_install
    code = ("import numpy as np, rapids_balance, rapids_balance.balancing._harary as h;"
            "print(rapids_balance.__file__); print(h.larger_side(np.array([1, 1, 0], np.int8)))")
    got = _run(env, tmp_path, "-c", code)
    assert got.returncode == 0, got.stderr
    assert got.stdout.splitlines() == [str(site / "rapids_balance" / "__init__.py"), "1"]
    assert got.stderr.count("CacheFallbackWarning") == 1  # said once
    cache = temp / f"rapids-balance-{os.getuid()}" / "numba"
    assert oct(os.stat(cache.parent).st_mode & 0o777) == "0o700"
    assert any(name.endswith(".nbi") for _, _, files in os.walk(cache) for name in files)


def test_readonly_install_cli_help(readonly_install, tmp_path):
    _, env, _ = readonly_install
    got = _run(env, tmp_path, "-m", "rapids_balance", "--help")
    assert got.returncode == 0, got.stderr
    assert "usage: rapids-balance" in got.stdout


def test_numba_cache_dir_set_by_the_user_wins(readonly_install, tmp_path):
    _, env, temp = readonly_install
    mine = tmp_path / "mine"
    env = {**env, "NUMBA_CACHE_DIR": str(mine)}
    got = _run(env, tmp_path, "-c", "import rapids_balance.balancing._harary")
    assert got.returncode == 0, got.stderr
    assert "CacheFallbackWarning" not in got.stderr and not (temp / f"rapids-balance-{os.getuid()}").exists()
