#!/bin/sh
# Render the manual pages of eval/holdout4-de/docs from Debian packages (bookworm) as installed on the
# machine the library was written on: dpkg (dpkg), apt (apt-cache, apt-mark), passwd (usermod, groupadd),
# psmisc (pstree, fuser), procps (pidof).
set -e
cd "$(dirname "$0")/../docs"
for page in "1 dpkg" "8 apt-cache" "8 usermod" "8 groupadd" "1 pstree" "1 fuser" "8 apt-mark" "1 pidof"; do
    set -- $page
    MANWIDTH=78 man -L de -P cat "$1" "$2" | col -bx > "man-$2.txt"
done
