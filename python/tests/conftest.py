# SPDX-License-Identifier: MIT
"""Fixtures of the devo package's tests: the repository's data, and the devo and etc-gen
programs of a CPU build for the tests that compare the package with the command.

The programs are found through DEVO_BIN (the devo program; etc-gen beside it), else in the
build/ folder of the repository. Without them those tests are skipped, unless
DEVO_REQUIRE_CLI=1 (CI sets it), which makes a missing program a failure."""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _program(name):
    env = os.environ.get("DEVO_BIN")
    base = pathlib.Path(env).parent if env else ROOT / "build"
    path = pathlib.Path(env) if env and name == "devo" else base / name
    if path.is_file() and os.access(path, os.X_OK):
        return str(path)
    msg = f"{name} not found at {path} (set DEVO_BIN to a built devo program)"
    if os.environ.get("DEVO_REQUIRE_CLI") == "1":
        pytest.fail(msg)
    pytest.skip(msg)


@pytest.fixture(scope="session")
def devo_bin():
    return _program("devo")


@pytest.fixture(scope="session")
def etc_gen_bin():
    return _program("etc-gen")


@pytest.fixture(scope="session")
def cec_data():
    return str(ROOT / "data" / "cec")


@pytest.fixture(scope="session")
def run_cli():
    """Runs a program; returns its stdout (a non-zero exit fails the test with its stderr)."""

    def run(*args):
        p = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, f"{args}: exit {p.returncode}: {p.stderr}"
        return p.stdout

    return run
