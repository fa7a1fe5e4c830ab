#!/bin/sh
# tests/golden/regen.sh — rewrites every golden file of tests/golden/cases
# from the emitters as built (run from the top of a configured build tree:
# `make tests/golden/emit_golden && tests/golden/regen.sh`).  Review the
# diff: a change there is a change of generated code.
set -e
src=${KF_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${KF_BUILDDIR:-.}
prog=$build/tests/golden/emit_golden
[ -x "$prog" ] || { echo "regen.sh: build $prog first (make tests/golden/emit_golden)" >&2; exit 2; }
grep -v '^#' "$src/tests/golden/cases" | while read -r name lang backend problem preset point; do
    [ -n "$name" ] || continue
    mkdir -p "$src/tests/golden/$(dirname "$name")"
    (cd "$src" && "$prog" "$lang" "$backend" "$problem" "$preset" "$point") > "$src/tests/golden/$name.golden"
    echo "wrote tests/golden/$name.golden"
done
