"""LDAP sign-in with ldap3: search-then-bind (or direct bind), then the person's groups.

Every value from the login form is escaped before it enters a filter or a DN, an empty
password is refused before any bind (an LDAP "unauthenticated bind" would succeed), TLS
certificates are always verified, and a server that cannot be reached raises
``DirectoryUnavailable``: nobody is let in by a weaker check meanwhile.
"""
from __future__ import annotations

import logging
import math
import ssl
from collections.abc import Mapping
from typing import Any

from ldap3 import SUBTREE, Connection, Server, Tls
from ldap3.core.exceptions import LDAPBindError, LDAPException, LDAPInvalidCredentialsResult
from ldap3.utils.conv import escape_filter_chars
from ldap3.utils.dn import escape_rdn

from irisrag.config import DEFAULTS
from irisrag.errors import DirectoryUnavailable, SignInRefused
from irisrag.i18n import N_
from irisrag.services.signin.external_accounts import ExternalIdentity

log = logging.getLogger(__name__)
UNREACHABLE = N_("The directory service (LDAP) cannot be reached at the moment. Please try again later.")
REFUSED = N_("Invalid username or password.")


class LdapDirectory:
    """The configured LDAP server; ``authenticate`` checks a name and password against it."""

    def __init__(self, settings: Mapping[str, Any]) -> None:
        self.settings = {**DEFAULTS, **settings}
        self.url = settings["LDAP_URL"]
        self.timeout = max(1, math.ceil(float(settings.get("LDAP_TIMEOUT", 5.0))))  # ldap3 wants whole seconds

    def _server(self) -> Server:
        ca_file = self.settings.get("LDAP_CA_FILE") or None
        tls = Tls(validate=ssl.CERT_REQUIRED, ca_certs_file=ca_file, version=ssl.PROTOCOL_TLS_CLIENT)
        return Server(self.url, use_ssl=self.url.lower().startswith("ldaps://"), tls=tls,
                      connect_timeout=self.timeout, get_info=None)

    def _connect(self, user: str | None, password: str | None) -> Connection:
        """Open, secure and bind a connection; False from bind means wrong credentials."""
        conn = Connection(self._server(), user=user, password=password, receive_timeout=self.timeout,
                          raise_exceptions=False, read_only=True, auto_referrals=False)
        try:
            conn.open()
            if self.settings.get("LDAP_START_TLS") and not conn.start_tls():
                raise DirectoryUnavailable(UNREACHABLE, detail=f"StartTLS failed: {conn.result}")
            bound = conn.bind()
        except (LDAPBindError, LDAPInvalidCredentialsResult) as exc:
            raise SignInRefused(REFUSED, detail=str(exc)) from exc
        except LDAPException as exc:
            raise DirectoryUnavailable(UNREACHABLE, detail=f"{type(exc).__name__}: {exc}") from exc
        if not bound:
            result = conn.result or {}
            conn.unbind()
            if result.get("result") == 49:  # invalidCredentials
                raise SignInRefused(REFUSED, detail=f"bind refused for {user!r}")
            raise DirectoryUnavailable(UNREACHABLE, detail=f"bind failed: {result}")
        return conn

    def _search(self, conn: Connection, base: str, query: str, attributes: list[str]) -> list:
        try:
            conn.search(base, query, search_scope=SUBTREE, attributes=attributes, size_limit=50)
        except LDAPException as exc:
            raise DirectoryUnavailable(UNREACHABLE, detail=f"search failed: {exc}") from exc
        if conn.result and conn.result.get("result") not in (0, 4, 32):  # success, size limit, no such object
            raise DirectoryUnavailable(UNREACHABLE, detail=f"search failed: {conn.result}")
        return list(conn.entries)

    def _find_user(self, conn: Connection, username: str):
        attribute = self.settings["LDAP_USERNAME_ATTRIBUTE"]
        query = f"(&{self.settings['LDAP_USER_FILTER']}({attribute}={escape_filter_chars(username)}))"
        entries = self._search(conn, self.settings["LDAP_USER_BASE"], query, [attribute, "memberOf"])
        if len(entries) != 1:  # none, or a name that is not unique: nobody is let in
            raise SignInRefused(REFUSED, detail=f"{len(entries)} entries for {username!r}")
        return entries[0]

    def _groups(self, conn: Connection, entry, username: str) -> tuple[str, ...]:
        base = self.settings.get("LDAP_GROUP_BASE")
        if not base:
            return tuple(str(v) for v in (entry.memberOf.values if "memberOf" in entry else []))
        query = self.settings["LDAP_GROUP_FILTER"].format(
            user_dn=escape_filter_chars(entry.entry_dn), username=escape_filter_chars(username))
        return tuple(e.entry_dn for e in self._search(conn, base, query, []))

    def _bind_user(self, username: str, password: str) -> tuple[Connection, Any]:
        """Bind as the person; return the connection used for reading and their entry."""
        template = self.settings.get("LDAP_USER_DN_TEMPLATE")
        if self.settings.get("LDAP_BIND_DN") or not template:
            service = self._connect(self.settings.get("LDAP_BIND_DN") or None,
                                    self.settings.get("LDAP_BIND_PASSWORD") or None)
            entry = self._find_user(service, username)
            self._connect(entry.entry_dn, password).unbind()
            return service, entry
        conn = self._connect(template.format(username=escape_rdn(username)), password)
        return conn, self._find_user(conn, username)

    def authenticate(self, username: str, password: str) -> ExternalIdentity:
        """Check the name and password against the directory and return who signed in."""
        username = (username or "").strip()
        if not username or not password:
            raise SignInRefused(REFUSED, detail="empty user name or password")
        conn, entry = self._bind_user(username, password)
        try:
            groups = self._groups(conn, entry, username)
        finally:
            conn.unbind()
        values = [str(v) for v in entry[self.settings["LDAP_USERNAME_ATTRIBUTE"]].values]
        name = next((v for v in values if v.lower() == username.lower()), values[0] if values else username)
        return ExternalIdentity("ldap", name.lower(), name, groups)
