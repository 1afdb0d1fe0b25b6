#!/bin/sh
# Render the Debian documents of eval/holdout7-de/docs (bookworm): the German manual pages sort(1), cp(1),
# tail(1) and gzip(1), all from manpages-de 4.18.1-1, and chapter 8 "Die Debian-Paketverwaltungswerkzeuge" of the
# German Debian FAQ (debian-faq-de 11.1), copied as it is shipped, navigation included.
# Nothing is installed: both packages are downloaded into a temporary folder and unpacked there.
# Needs apt-get, dpkg-deb, man (man-db) and col (bsdextrautils).
set -e
DOCS="$(cd "$(dirname "$0")/../docs" && pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
apt-get -o DPkg::Lock::Timeout=900 download manpages-de=4.18.1-1 debian-faq-de=11.1
for deb in ./*.deb; do dpkg-deb -x "$deb" root; done
for page in sort cp tail gzip; do
    LANG=C.UTF-8 MANWIDTH=78 man -l -P cat "root/usr/share/man/de/man1/$page.1.gz" | col -bx > "$DOCS/man-$page.txt"
done
cp root/usr/share/doc/debian/FAQ/de/pkgtools.de.html "$DOCS/debian-faq-kapitel8.html"
