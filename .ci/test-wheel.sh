#!/usr/bin/env bash
# Test a wheel as a user gets it (make test-wheel): a new virtual environment in a temporary
# directory outside the source tree, the wheel and its `test` extra installed from the wheel file,
# the tests and the notebooks they execute copied next to it (the source tree's python/ is never on
# sys.path), then the whole pytest suite with ROPELAB_WHEEL_TEST=1.
#   usage: .ci/test-wheel.sh PYTHON WHEEL REFERENCE_FINGERPRINT_JSON
set -euo pipefail
py=$1
wheel=$(realpath "$2")
reference=$(realpath "$3")
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/ropelab-wheel-test.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "test-wheel: $(basename "$wheel") with $("$py" -c 'import sys; print(sys.version.split()[0])') in $work"
"$py" -m venv "$work/venv"
venv_py=$work/venv/bin/python
"$venv_py" -m pip install -q --upgrade pip
"$venv_py" -m pip install -q "ropelab[test] @ file://$wheel"

mkdir "$work/run"
cp -r "$src/tests" "$src/notebooks" "$src/pyproject.toml" "$work/run/"   # pyproject: pytest's settings
cd "$work/run"
# The package must come from the virtual environment, not from a source tree.
"$venv_py" - "$work/venv" <<'PY'
import pathlib, sys
import ropelab
where = pathlib.Path(ropelab.__file__).resolve()
assert where.is_relative_to(pathlib.Path(sys.argv[1]).resolve()), f"ropelab imported from {where}"
print(f"ropelab {ropelab.__version__} from {where.parent}")
PY
PATH="$work/venv/bin:$PATH" ROPELAB_WHEEL_TEST=1 ROPELAB_REFERENCE_FINGERPRINT="$reference" \
  "$venv_py" -m pytest -p no:cacheprovider --rootdir="$work/run" -q tests
