#!/bin/sh
# plugins/embed-text.sh SYMBOL FILE — FILE as a C string constant SYMBOL on
# stdout: how a plugin carries a text file it hands out (its export callers,
# plugins/*/export/), so nothing has to be found on disk at run time.
set -e
sym=$1
file=$2
echo "/* generated from $(basename "$file") by plugins/embed-text.sh */"
echo "extern const char ${sym}[];"
echo "const char ${sym}[] ="
sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/?/\\?/g' -e 's/^/    "/' -e 's/$/\\n"/' "$file"
echo ';'
