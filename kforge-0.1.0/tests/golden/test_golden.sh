#!/bin/sh
# tests/golden/test_golden.sh — each emitter's output for the cases in
# tests/golden/cases equals its checked-in golden file.  On a difference
# the diff's head is printed; if the change is intended, run
# tests/golden/regen.sh and commit the new files.
. "$KF_SRCDIR/tests/e2e/tap.sh"
prog=$KF_BUILDDIR/tests/golden/emit_golden
cases=$(grep -v '^#' "$KF_SRCDIR/tests/golden/cases" | grep -c .)
echo "1..$((cases + 1))"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
while read -r name lang backend problem preset point; do
    case $name in ''|'#'*) continue ;; esac
    out=$tmp/out
    if ! (cd "$KF_SRCDIR" && "$prog" "$lang" "$backend" "$problem" "$preset" "$point") > "$out" 2> "$tmp/err"; then
        no "$name: $lang emitter" "emit_golden failed: $(head -c 300 "$tmp/err")"
    elif ! diff -u "$KF_SRCDIR/tests/golden/$name.golden" "$out" > "$tmp/diff"; then
        no "$name: $lang emitter output equals tests/golden/$name.golden" "$(head -20 "$tmp/diff" | sed 's/^/  /')" \
           "intended? run tests/golden/regen.sh and commit"
    else
        ok "$name: $lang emitter output equals tests/golden/$name.golden"
    fi
done < "$KF_SRCDIR/tests/golden/cases"
# every emitter has golden cases
missing=""
for lang in $("$prog" --languages); do
    grep -v '^#' "$KF_SRCDIR/tests/golden/cases" | awk '{print $2}' | grep -qx "$lang" || missing="$missing $lang"
done
if [ -z "$missing" ]; then ok "every emitter has golden cases"; else no "every emitter has golden cases" "none for:$missing"; fi
tap_exit
