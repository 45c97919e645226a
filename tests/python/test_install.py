"""`make install` puts the package where it finds the installed library."""

import os
import subprocess
import sys

import pytest

from conftest import ROOT, BUILD


@pytest.mark.parametrize("prefix,sub", [("/usr", "python3"),
                                        ("/opt/g", "python%d.%d" % sys.version_info[:2])])
def test_installed_package_finds_installed_library(tmp_path, prefix, sub):
    dest = tmp_path / "root"
    subprocess.run(["make", "-s", "-C", ROOT, "BUILD=" + BUILD, "install", "PREFIX=" + prefix,
                    "DESTDIR=" + str(dest)], check=True, capture_output=True)
    pkg = "%s%s/lib/%s/dist-packages" % (dest, prefix, sub)
    assert os.path.isfile(pkg + "/gtool/__init__.py")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "GTOOL_LIBRARY")}
    env["PYTHONPATH"] = pkg
    out = subprocess.run([sys.executable, "-c", "import gtool, numpy as np; "
                          "print(gtool.library_path); "
                          "print(gtool.decompress(gtool.compress(np.arange(5.0))).sum())"],
                         cwd=str(tmp_path), env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == ["%s%s/lib/libgtool.so.0" % (dest, prefix), "10.0"]


def test_gtool_library_variable(tmp_path):
    """A copy of the package away from any build finds the library through
    GTOOL_LIBRARY, and says where it looked when that is not set."""
    import shutil
    shutil.copytree(os.path.join(ROOT, "python", "gtool"), tmp_path / "gtool")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "GTOOL_LIBRARY")}
    env["PYTHONPATH"] = str(tmp_path)
    code = "import gtool; print(gtool.library_path)"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 1
    assert "gtool: libgtool not found (tried " in out.stderr and "GTOOL_LIBRARY" in out.stderr
    env["GTOOL_LIBRARY"] = os.path.join(BUILD, "libgtool.so.0")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == env["GTOOL_LIBRARY"]
