#!/usr/bin/env bash
# The term bridge's German→English word list (BRIDGE_DICTIONARY): Debian's trans-de-en (Ding, GPL-2+).
# Installed where this runs as root with apt-get; otherwise a hint. Never fatal: without it the
# bridge asks the embedder alone (README: the term bridge).
set -u
list=/usr/share/trans/de-en
[ -f "$list" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing Debian's trans-de-en (the term bridge's German-English word list)..."
  { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq trans-de-en \
    || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq trans-de-en; }; } \
    >/tmp/irisrag-apt-words.log 2>&1 \
    || echo "Could not install trans-de-en (see /tmp/irisrag-apt-words.log); German questions over English text will be bridged by the embedder alone."
else
  echo "No $list (apt-get install trans-de-en): German questions over English text will be bridged by the embedder alone."
fi
exit 0
