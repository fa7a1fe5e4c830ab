#!/bin/sh
# build_ze_null.sh DEST -- build ONLY the Level Zero null driver (libze_null.so)
# from the Debian source of the installed level-zero loader and install it as
# DEST/libze_null.so.1 (+ DEST/libze_null.so symlink).
# The loader (ze_loader.cpp) dlopens MAKE_LIBRARY_NAME("ze_null", L0_LOADER_VERSION)
# = "libze_null.so.1" when ZE_ENABLE_NULL_DRIVER=1.
# Use: LD_LIBRARY_PATH=DEST ZE_ENABLE_NULL_DRIVER=1 ./prog
set -eu
DEST=${1:?usage: build_ze_null.sh DEST}
mkdir -p "$DEST"
DEST=$(cd "$DEST" && pwd)
if [ -f "$DEST/libze_null.so.1" ] && [ -L "$DEST/libze_null.so" ]; then
    echo "build_ze_null: $DEST/libze_null.so.1 already present, skipping"
    exit 0
fi
JOBS=$(nproc 2>/dev/null || echo 2)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ze_null.XXXXXX")
trap 'rm -rf "$WORK"' EXIT INT TERM

SRC=${LZ_SRC_DIR:-}
if [ -z "$SRC" ]; then
    for d in "${LZ_SRC_PARENT:-/nonexistent}"/level-zero-*; do
        [ -d "$d/source/drivers/null" ] && SRC=$d
    done
fi
if [ -z "$SRC" ]; then
    # fetch the Debian source package of level-zero
    SRCDIR="$WORK/src"; mkdir -p "$SRCDIR"
    if ! (cd "$SRCDIR" && apt-get source --download-only level-zero) >"$WORK/aptsrc.log" 2>&1; then
        echo "build_ze_null: apt-get source failed, adding a deb-src entry" >&2
        if [ "$(id -u)" != 0 ]; then SUDO=sudo; else SUDO=; fi
        printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
            | $SUDO tee /etc/apt/sources.list.d/kf-src.sources >/dev/null
        $SUDO apt-get update -qq
        (cd "$SRCDIR" && apt-get source --download-only level-zero)
    fi
    # unpack only the upstream tarball (no dpkg-source / dpkg-dev needed)
    ORIG=$(ls "$SRCDIR"/level-zero_*.orig.tar.* | head -n1)
    mkdir -p "$SRCDIR/x"
    tar -xf "$ORIG" -C "$SRCDIR/x"
    SRC=$(dirname "$(find "$SRCDIR/x" -maxdepth 4 -type d -path '*/source/drivers/null' | head -n1)")
    SRC=$(cd "$SRC/../.." && pwd)
fi
echo "build_ze_null: source $SRC"
cmake -S "$SRC" -B "$WORK/build" -DCMAKE_BUILD_TYPE=Release >"$WORK/cmake.log" 2>&1 \
    || { cat "$WORK/cmake.log" >&2; exit 1; }
cmake --build "$WORK/build" --target ze_null -j"$JOBS" >"$WORK/build.log" 2>&1 \
    || { cat "$WORK/build.log" >&2; exit 1; }
REAL=$(ls "$WORK"/build/lib/libze_null.so.1.* | head -n1)
install -m 0755 "$REAL" "$DEST/libze_null.so.1.tmp"
mv -f "$DEST/libze_null.so.1.tmp" "$DEST/libze_null.so.1"
ln -sf libze_null.so.1 "$DEST/libze_null.so"
echo "build_ze_null: installed $DEST/libze_null.so.1"
