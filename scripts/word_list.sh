#!/usr/bin/env bash
# The term bridge's German→English word list (BRIDGE_DICTIONARY): Debian's trans-de-en (Ding, GPL-2+),
# and its German synonyms (rag/thesaurus.py): Debian's openthesaurus-de-text (LGPL).
# Installed where this runs as root with apt-get; otherwise a hint. Never fatal: without it the
# bridge asks the embedder alone (README: the term bridge).
set -u
list=/usr/share/trans/de-en
synonyms=/usr/share/openthesaurus-de/openthesaurus.txt
[ -f "$list" ] && [ -f "$synonyms" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing Debian's trans-de-en and openthesaurus-de-text (the term bridge's word lists)..."
  { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq trans-de-en openthesaurus-de-text \
    || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq trans-de-en openthesaurus-de-text; }; } \
    >/tmp/irisrag-apt-words.log 2>&1 \
    || echo "Could not install trans-de-en openthesaurus-de-text (see /tmp/irisrag-apt-words.log); German questions over English text will be bridged by the embedder alone."
else
  echo "No $list or $synonyms (apt-get install trans-de-en openthesaurus-de-text): German questions over English text will be bridged by the embedder alone, and German synonyms not at all."
fi
exit 0
