"""The Python client's wheel and sdist, installed into fresh virtualenvs as a user would."""

import os
import subprocess
import venv

import pytest


def fresh_venv(path):
    venv.EnvBuilder(with_pip=True).create(path)
    return os.path.join(path, "bin", "python")


@pytest.mark.parametrize("kind", ["wheel", "sdist"])
def test_the_client_installs_into_a_fresh_virtualenv_and_imports(dist, version, tmp_path, kind):
    name = f"winlimit-{version}-py3-none-any.whl" if kind == "wheel" else f"winlimit-{version}.tar.gz"
    python = fresh_venv(str(tmp_path / "venv"))
    subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                    os.path.join(dist, name)], check=True)
    out = subprocess.run([python, "-c", "import winlimit; print(winlimit.__version__)"],
                         capture_output=True, text=True, check=True, cwd=tmp_path)
    assert out.stdout.strip() == version
