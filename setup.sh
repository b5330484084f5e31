#!/usr/bin/env bash
# Installs what Tailor needs on Debian/Ubuntu: the C++ toolchain from apt and the
# Python packages (requirements.txt, and requirements-test.txt for the tests) into
# ./.venv. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")"

apt_packages=(g++ python3-venv
  # XNNPACK delegate (host-xnnpack), aarch64 cross builds run under qemu, the Android
  # freestanding compile check (clang --target=aarch64-linux-android24)
  libxnnpack-dev libpthreadpool-dev libcpuinfo-dev g++-aarch64-linux-gnu qemu-user clang lld
  # the demo GPT's corpus: its held-out slice for bench/quantization.py's perplexity
  bible-kjv
  # launcher=ccache, and its test (tests/e2e/test_launcher.py)
  ccache
  # the C apps that link lib=shared/static through find_package(tailor) and tailor.pc
  # (tests/bindings/test_c_program.py, test_wheel.py)
  cmake pkg-config)
missing=()
for package in "${apt_packages[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]} (apt)"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -q
  "${sudo_cmd[@]}" apt-get install -y -q "${missing[@]}"
fi

# linux-aarch64-xnnpack unpacks Debian's arm64 XNNPACK into a private sysroot under
# build/ (apt-get download): apt must know the arm64 architecture.
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  echo "setup: adding the arm64 architecture (apt) for the aarch64 XNNPACK sysroot"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" dpkg --add-architecture arm64
  "${sudo_cmd[@]}" apt-get update -q
fi

if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  python3 -m venv .venv
fi
echo "setup: installing Python packages (requirements.txt)"
.venv/bin/pip install -q --disable-pip-version-check -r requirements.txt
# Second, so torch is already pinned when torchvision and timm are resolved.
echo "setup: installing the test packages (requirements-test.txt)"
.venv/bin/pip install -q --disable-pip-version-check -r requirements-test.txt
# The repository itself, editable (pyproject.toml): `import tailor` and the `tailor`
# command from any directory. --no-deps and --no-build-isolation: everything it needs is
# installed above, and pip downloads nothing.
echo "setup: installing this repository as the tailor package (editable)"
.venv/bin/pip install -q --disable-pip-version-check --no-deps --no-build-isolation -e .
echo "setup: done"
