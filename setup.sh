#!/usr/bin/env bash
# Installs what Tailor needs on Debian/Ubuntu: the C++ toolchain from apt and the
# Python packages (requirements.txt) into ./.venv. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")"

apt_packages=(g++ python3-venv)
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

if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  python3 -m venv .venv
fi
echo "setup: installing Python packages (requirements.txt)"
.venv/bin/pip install -q --disable-pip-version-check -r requirements.txt
echo "setup: done"
