#!/bin/sh
# Render the Debian documents of eval/holdout5-de/docs (bookworm) as installed on the machine the library
# was written on: the German manual pages find(1) (findutils), df(1), chmod(1), date(1) (coreutils), all
# translated in manpages-de, and chapter 11 of the Debian Reference in German (debian-reference-de), copied
# as it is shipped, navigation included.
#   apt-get install manpages-de debian-reference-de
set -e
cd "$(dirname "$0")/../docs"
for page in "1 find" "1 df" "1 chmod" "1 date"; do
    set -- $page
    MANWIDTH=78 man -L de -P cat "$1" "$2" | col -bx > "man-$2.txt"
done
cp /usr/share/debian-reference/ch11.de.html debian-reference-kapitel11.html
