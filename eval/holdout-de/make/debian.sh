#!/bin/sh
# Copy and render the documents of eval/holdout-de/docs that come from Debian packages (bookworm):
# debian-reference-de 2.100 and manpages-de 4.18.1-1, passwd 1:4.13 (apt-get install debian-reference-de manpages-de).
set -e
cd "$(dirname "$0")/../docs"
cp /usr/share/debian-reference/ch05.de.html debian-reference-kap5-netzwerk.html
for page in "1 tar" "1 passwd" "1 ssh"; do
    set -- $page
    MANWIDTH=78 man -L de -P cat "$1" "$2" | col -bx > "man-$2.txt"
done
