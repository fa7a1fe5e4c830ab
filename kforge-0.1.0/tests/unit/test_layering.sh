#!/bin/sh
# tests/unit/test_layering.sh — the parts of core/ depend on each other one
# way only.  The order is the order core/Makefile.inc includes the parts'
# Makefile.inc files (bottom first; cli last).  Every `#include "PART/..."`
# in a part must name a part listed before it (or itself), and every
# include of a header of core must name its part, so that the dependency
# shows in the source.  One TAP case per part, plus one that fails on any
# include the rule does not know.
. "$KF_SRCDIR/tests/e2e/tap.sh"
cd "$KF_SRCDIR/core" || exit 1
order=$(sed -n 's|^include core/\([a-z_]*\)/Makefile.inc$|\1|p' Makefile.inc)
[ -n "$order" ] || { echo "not ok 1 - no parts found in core/Makefile.inc"; exit 1; }
echo "1..$(( $(echo "$order" | wc -l) + 2 ))"
# every header of core, as "part/name.h"
headers=$(find . -name '*.h' | sed 's|^\./||')
below=""
for part in $order; do
    bad=""
    for f in $(find "$part" -name '*.c' -o -name '*.h' | sort); do
        for inc in $(sed -n 's/^[ \t]*#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$f"); do
            case $inc in
            */*)
                # a subfolder of the includer's own folder: the same part
                case $inc in ../*) ;; *) [ -f "$(dirname "$f")/$inc" ] && continue ;; esac
                # "../x.h" climbs out of a folder: only within the same part
                case $inc in ../*) case $(cd "$(dirname "$f")/$(dirname "$inc")" && pwd) in
                        "$PWD/$part"|"$PWD/$part"/*) continue ;; esac
                    bad="$bad $f:$inc"; continue ;; esac
                ipart=${inc%%/*}
                # agent/builtin/... belongs to agent
                ok_part=no
                for p in $below $part; do [ "$p" = "$ipart" ] && ok_part=yes; done
                [ $ok_part = yes ] || bad="$bad $f:$inc" ;;
            *)
                # a bare name must be in the same folder or outside core
                # (config.h, kforge-plugin.h, the plugin SDK)
                [ -f "$(dirname "$f")/$inc" ] && continue
                if echo "$headers" | grep -q "/$inc\$\|^$inc\$"; then bad="$bad $f:$inc"; fi ;;
            esac
        done
    done
    if [ -z "$bad" ]; then ok "part $part includes only parts below it"
    else no "part $part includes only parts below it" $bad; fi
    below="$below $part"
done
# no stray source files at the top of core/
stray=$(find . -maxdepth 1 -name '*.[ch]' | sed 's|^\./||')
if [ -z "$stray" ]; then ok "core/ holds parts only, no loose sources"
else no "core/ holds parts only, no loose sources" $stray; fi
# every folder with sources is a listed part (or inside one)
unlisted=""
for d in $(find . -mindepth 1 -maxdepth 1 -type d | sed 's|^\./||' | sort); do
    ls "$d"/*.c >/dev/null 2>&1 || continue
    echo "$order" | grep -qx "$d" || unlisted="$unlisted $d"
done
if [ -z "$unlisted" ]; then ok "every folder of core/ with sources is a part in core/Makefile.inc"
else no "every folder of core/ with sources is a part in core/Makefile.inc" $unlisted; fi
tap_exit
