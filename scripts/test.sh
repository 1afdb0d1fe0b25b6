#!/usr/bin/env bash
# Run the whole test suite, starting what it needs. Used by `make test` and CI.
set -uo pipefail
cd "$(dirname "$0")/.."

# Browser tests use Debian's Chromium (never a downloaded browser).
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing Debian's chromium for the browser tests..."
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/tmp/irisrag-apt.log 2>&1 \
      || echo "Could not install chromium (see /tmp/irisrag-apt.log); browser tests will be skipped."
  else
    echo "chromium is not installed; browser tests will be skipped (apt-get install chromium)."
  fi
fi

# OCR tests use Debian's tesseract with the German and English language data.
if ! command -v tesseract >/dev/null 2>&1 || ! tesseract --list-langs 2>/dev/null | grep -qx deu \
   || [ ! -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing Debian's tesseract-ocr (deu, eng) for the OCR tests..."
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      tesseract-ocr tesseract-ocr-deu tesseract-ocr-eng fonts-dejavu-core) >>/tmp/irisrag-apt.log 2>&1 \
      || echo "Could not install tesseract-ocr (see /tmp/irisrag-apt.log); OCR tests will be skipped."
  else
    echo "tesseract-ocr is not installed; OCR tests will be skipped (apt-get install tesseract-ocr tesseract-ocr-deu tesseract-ocr-eng)."
  fi
fi

# The term bridge's word list (Debian's trans-de-en) and synonyms (openthesaurus-de-text) for their tests.
bash scripts/word_list.sh

# SSO tests: a private slapd (Debian's, run from its own slapd.conf, never the system service)
# and npm's oidc-provider under Node, installed from the committed lock file.
missing_pkgs=()
command -v slapd >/dev/null 2>&1 || [ -x /usr/sbin/slapd ] || missing_pkgs+=(slapd ldap-utils)
command -v node >/dev/null 2>&1 || missing_pkgs+=(nodejs)
command -v npm >/dev/null 2>&1 || missing_pkgs+=(npm)
if [ ${#missing_pkgs[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing ${missing_pkgs[*]} for the SSO tests..."
    echo 'slapd slapd/no_configuration boolean true' | debconf-set-selections
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing_pkgs[@]}") \
      >/tmp/irisrag-apt-sso.log 2>&1 \
      || echo "Could not install ${missing_pkgs[*]} (see /tmp/irisrag-apt-sso.log); SSO tests will be skipped."
  else
    echo "${missing_pkgs[*]} not installed; SSO tests will be skipped (apt-get install ${missing_pkgs[*]})."
  fi
fi
oidc=tests/support/oidc
if command -v npm >/dev/null 2>&1 && { [ ! -d $oidc/node_modules/oidc-provider ] || [ $oidc/package-lock.json -nt $oidc/node_modules ]; }; then
  (cd $oidc && npm ci --no-audit --no-fund --loglevel=error) || echo "npm ci failed in $oidc; OIDC tests will be skipped."
fi

# PostgreSQL: start the local cluster if it exists but is down.
if command -v pg_isready >/dev/null 2>&1 && ! pg_isready -h 127.0.0.1 -p 5432 -q; then
  if command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ]; then
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start || true
  fi
fi

# Redis: the tests start the bundled server themselves when none answers.
exec .venv/bin/python -m pytest -q "$@"
