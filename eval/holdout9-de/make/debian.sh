#!/bin/sh
# Render the Debian documents of eval/holdout9-de/docs (bookworm): the German manual pages touch(1), tee(1),
# split(1) and stat(1), all from manpages-de 4.18.1-1, and chapter 7 "GUI-System" of the German Debian
# Reference (debian-reference-de 2.100), copied as it is shipped, navigation included.
# Nothing is installed: both packages are downloaded into a temporary folder and unpacked there.
# Needs apt-get, dpkg-deb, man (man-db) and col (bsdextrautils).
set -e
DOCS="$(cd "$(dirname "$0")/../docs" && pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
apt-get -o DPkg::Lock::Timeout=900 download manpages-de=4.18.1-1 debian-reference-de=2.100
for deb in ./*.deb; do dpkg-deb -x "$deb" root; done
for page in touch tee split stat; do
    LANG=C.UTF-8 MANWIDTH=78 man -l -P cat "root/usr/share/man/de/man1/$page.1.gz" | col -bx > "$DOCS/man-$page.txt"
done
cp root/usr/share/debian-reference/ch07.de.html "$DOCS/debian-referenz-kapitel7.html"
