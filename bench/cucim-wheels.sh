#!/usr/bin/env bash
# cuCIM for bench/neighborhood_peers.py on a GPU machine without internet.
#
#   bench/cucim-wheels.sh download DIR          (here, with PyPI: the wheels into DIR)
#   bench/cucim-wheels.sh install DIR TARGET    (there: DIR's wheels into TARGET, for PYTHONPATH)
#
# The wheels: cucim-cu13 for CPython 3.12 on x86-64 (the GPU machine's Python
# and CUDA), and lazy_loader and packaging, which cucim.skimage imports; the
# machine's own CuPy and NumPy serve it. cucim.skimage imports scipy.special
# at import time though neither filter measured calls SciPy: where SciPy is
# absent, an empty stand-in package is written into TARGET.
set -euo pipefail
case "${1:-}" in
  download)
    dir=${2:?a folder for the wheels}
    mkdir -p "$dir"
    python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
      --platform manylinux_2_28_x86_64 --dest "$dir" "cucim-cu13==${CUCIM_VERSION:-26.10.0}" lazy_loader packaging
    ls -l "$dir" ;;
  install)
    dir=${2:?the folder of the wheels}
    target=${3:?a folder to install into}
    mkdir -p "$target"
    python3 -m pip install -q --no-index --no-deps --no-compile --disable-pip-version-check --upgrade \
      --target "$target" "$dir"/*.whl
    if ! PYTHONPATH="$target" python3 -c "import scipy.special" 2>/dev/null; then
      mkdir -p "$target/scipy"
      echo '"""Import-only stand-in (bench/cucim-wheels.sh): no SciPy on this machine."""' > "$target/scipy/__init__.py"
      : > "$target/scipy/special.py"
    fi
    PYTHONPATH="$target" python3 -c "import cucim, cupy; from cucim.skimage._vendored import ndimage; \
print('cucim', cucim.__version__, 'cupy', cupy.__version__)" ;;
  *)
    echo "usage: bench/cucim-wheels.sh download DIR | install DIR TARGET" >&2
    exit 2 ;;
esac
