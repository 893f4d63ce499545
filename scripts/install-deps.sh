#!/usr/bin/env bash
# Install what building and testing CudaCommon needs from Debian 12's packages
# (the CUDA toolkit is expected at /usr/local/cuda). Does nothing when all of
# it is installed already. Runs as root, or through sudo.
set -euo pipefail

packages=(
  cmake
  ninja-build
  g++
  libinsighttoolkit5-dev
  libgtest-dev
  libgmock-dev
  swig
  libfftw3-dev  # Debian's ITK headers include fftw3.h (FFT filters: the RTK compatibility build)
  # ITK's wrapping (WrapITK) of the module, offline (pip install ., scripts/test-wrapitk.sh):
  castxml       # ITK_USE_SYSTEM_CASTXML (ITK would download its own)
  libtbb-dev    # the wheels' ITK is built with TBB (Module_ITKTBB)
  patchelf      # the module takes itk-core's TBB, as auditwheel would
)
# Python packages the Python tests and `pip install .` need (PyPI).
# SWIG 4.2-4.3 (the wheels' runtime type table; Debian's 4.1 is too old for
# ITK 5.4) and CMake 3.26 or newer (the abi3 module: Development.SABIModule)
# for ITK's wrapping.
# cuobjdump (the test CudaCommon.CudaArchitectures): the toolkit here has none.
python_packages=(numpy pytest scikit-build-core "itk-core==5.4.7" "swig>=4.2,<4.4" "cmake>=3.26,<4"
  "nvidia-cuda-cuobjdump>=13,<14")
python_modules="numpy, pytest, scikit_build_core, itk, swig, cmake"
python=${PYTHON:-python3}

install_python_packages() {
  # itk-core must be the release the Python package is compiled against.
  if "$python" -c "import $python_modules; from importlib.metadata import version; assert version('itk-core') == '5.4.7'; assert (3, 26) <= tuple(map(int, version('cmake').split('.')[:2])) < (4,); assert (4, 2) <= tuple(map(int, version('swig').split('.')[:2])) < (4, 4); assert version('nvidia-cuda-cuobjdump').startswith('13.')" \
    2>/dev/null; then
    echo "install-deps: Python packages present (${python_packages[*]})"
  else
    echo "install-deps: installing Python packages ${python_packages[*]}"
    "$python" -m pip install --quiet "${python_packages[@]}"
  fi
}

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}\n' "$package" 2>/dev/null | grep -q '^install ok installed$'; then
    missing+=("$package")
  fi
done
if ((${#missing[@]} == 0)); then
  echo "install-deps: all packages present (${packages[*]})"
  install_python_packages
  exit 0
fi

as_root=()
if [[ $(id -u) -ne 0 ]]; then
  if ! command -v sudo >/dev/null; then
    echo "install-deps: missing ${missing[*]}; run as root to install them" >&2
    exit 1
  fi
  as_root=(sudo)
fi
echo "install-deps: installing ${missing[*]}"
"${as_root[@]}" apt-get update
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y --no-install-recommends "${missing[@]}"
install_python_packages
