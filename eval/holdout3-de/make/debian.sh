#!/bin/sh
# Render the manual pages of eval/holdout3-de/docs from Debian packages (bookworm) as installed on the
# machine the library was written on: adduser 3.134 (adduser, deluser), procps 2:4.0.2-3 (pgrep, vmstat,
# uptime, sysctl), psmisc 23.6-1 (killall).
set -e
cd "$(dirname "$0")/../docs"
for page in "8 adduser" "8 deluser" "1 pgrep" "8 vmstat" "1 uptime" "1 killall" "8 sysctl"; do
    set -- $page
    MANWIDTH=78 man -L de -P cat "$1" "$2" | col -bx > "man-$2.txt"
done
