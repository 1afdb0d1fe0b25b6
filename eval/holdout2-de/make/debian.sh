#!/bin/sh
# Render the manual pages of eval/holdout2-de/docs from Debian packages (bookworm), as installed on
# the machine the library was written on: passwd and login 1:4.13+dfsg1-1+deb12u1 (useradd, login.defs),
# apt 2.6.1 (apt-get, sources.list), xz-utils 5.4.1-1 (xz), procps 2:4.0.2-3 (watch, ps).
set -e
cd "$(dirname "$0")/../docs"
for page in "8 useradd" "8 apt-get" "1 xz" "1 watch" "5 login.defs" "5 sources.list" "1 ps"; do
    set -- $page
    MANWIDTH=78 man -L de -P cat "$1" "$2" | col -bx > "man-$2.txt"
done
