"""A private OpenLDAP server (Debian's ``slapd``) on 127.0.0.1, started from its own slapd.conf.

Plain LDAP and LDAPS listen on free loopback ports, StartTLS works on the plain port, and the
server certificate is signed by a throw-away CA whose file the tests hand to IrisRAG. The
memberof overlay keeps each person's ``memberOf`` (as Active Directory does). The
``Directory`` helper adds people and groups (groupOfNames) through the root DN, each test in
its own organisational unit, so tests never see each other's entries.
"""
from __future__ import annotations

import base64
import datetime
import hashlib
import ipaddress
import os
import shutil
import signal
import socket
import subprocess
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

SUFFIX = "dc=example,dc=org"
ROOT_DN = f"cn=admin,{SUFFIX}"
ROOT_PW = "root-secret"
SERVICE_DN = f"cn=irisrag,{SUFFIX}"
SERVICE_PW = "service-secret"
SCHEMAS = ("core", "cosine", "inetorgperson", "nis")

CONF = """\
{includes}
modulepath /usr/lib/ldap
moduleload back_mdb
moduleload memberof
pidfile {dir}/slapd.pid
argsfile {dir}/slapd.args
TLSCACertificateFile {dir}/ca.pem
TLSCertificateFile {dir}/server.pem
TLSCertificateKeyFile {dir}/server.key

database mdb
maxsize 104857600
suffix "{suffix}"
rootdn "{rootdn}"
rootpw {rootpw}
directory {dir}/data
overlay memberof
access to attrs=userPassword
  by self write
  by anonymous auth
  by * none
access to *
  by dn.exact="{service}" read
  by self read
  by users read
  by * none
"""


def ssha(password: str) -> str:
    """Hash a password as slapd's {SSHA} scheme."""
    salt = os.urandom(8)
    digest = hashlib.sha1(password.encode() + salt).digest()
    return "{SSHA}" + base64.b64encode(digest + salt).decode()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _write_certificates(folder: Path) -> None:
    """Write a CA and a server certificate for 127.0.0.1/localhost (PEM)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.UTC)

    def build(subject, issuer, key, signer, *, ca: bool):
        builder = (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer)
                   .public_key(key.public_key()).serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(minutes=5))
                   .not_valid_after(now + datetime.timedelta(days=2))
                   .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
        if not ca:
            builder = builder.add_extension(x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        return builder.sign(signer, hashes.SHA256())

    ca_key, server_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "IrisRAG test CA")])
    server_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    ca = build(ca_name, ca_name, ca_key, ca_key, ca=True)
    server = build(server_name, ca_name, server_key, ca_key, ca=False)
    pem = serialization.Encoding.PEM
    (folder / "ca.pem").write_bytes(ca.public_bytes(pem))
    (folder / "server.pem").write_bytes(server.public_bytes(pem))
    (folder / "server.key").write_bytes(server_key.private_bytes(
        pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    os.chmod(folder / "server.key", 0o600)


def _seed(folder: Path) -> str:
    return "\n".join([
        f"dn: {SUFFIX}", "objectClass: dcObject", "objectClass: organization", "dc: example", "o: Example", "",
        f"dn: {SERVICE_DN}", "objectClass: organizationalRole", "objectClass: simpleSecurityObject",
        "cn: irisrag", f"userPassword: {ssha(SERVICE_PW)}", "",
    ])


@dataclass
class Slapd:
    folder: Path
    port: int
    tls_port: int
    process: subprocess.Popen

    @property
    def url(self) -> str:
        return f"ldap://127.0.0.1:{self.port}"

    @property
    def ldaps_url(self) -> str:
        return f"ldaps://127.0.0.1:{self.tls_port}"

    @property
    def ca_file(self) -> str:
        return str(self.folder / "ca.pem")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)


def start_slapd(folder: Path) -> Slapd:
    """Configure, seed and start a private slapd; raise RuntimeError when it does not come up."""
    slapd = shutil.which("slapd") or "/usr/sbin/slapd"
    slapadd = shutil.which("slapadd") or "/usr/sbin/slapadd"
    if not Path(slapd).exists():
        raise FileNotFoundError("slapd is not installed (apt-get install slapd ldap-utils)")
    (folder / "data").mkdir(parents=True)
    _write_certificates(folder)
    includes = "\n".join(f"include /etc/ldap/schema/{name}.schema" for name in SCHEMAS)
    conf = folder / "slapd.conf"
    conf.write_text(CONF.format(includes=includes, dir=folder, suffix=SUFFIX, rootdn=ROOT_DN,
                                rootpw=ssha(ROOT_PW), service=SERVICE_DN))
    subprocess.run([slapadd, "-f", str(conf), "-q"], input=_seed(folder), text=True, check=True,
                   capture_output=True)
    port, tls_port = _free_port(), _free_port()
    urls = f"ldap://127.0.0.1:{port}/ ldaps://127.0.0.1:{tls_port}/"
    log = open(folder / "slapd.log", "wb")  # noqa: SIM115 - kept open for the server's lifetime
    process = subprocess.Popen([slapd, "-d", "0", "-f", str(conf), "-h", urls], stdout=log, stderr=log)
    server = Slapd(folder, port, tls_port, process)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"slapd exited: {(folder / 'slapd.log').read_text()[-2000:]}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return server
        except OSError:
            time.sleep(0.05)
    server.stop()
    raise RuntimeError("slapd did not start within 15 s")


class Directory:
    """People and groups of one test, below their own ou= in the running slapd."""

    def __init__(self, server: Slapd) -> None:
        from ldap3 import Connection, Server

        self.server = server
        self.base = f"ou=t{uuid.uuid4().hex[:10]},{SUFFIX}"
        self.people = f"ou=people,{self.base}"
        self.groups = f"ou=groups,{self.base}"
        self.conn = Connection(Server(server.url), ROOT_DN, ROOT_PW, auto_bind=True)
        for dn in (self.base, self.people, self.groups):
            self._add(dn, ["organizationalUnit"], {"ou": dn.split(",")[0][3:]})

    def _add(self, dn: str, classes: list[str], attributes: dict) -> None:
        if not self.conn.add(dn, classes, attributes):
            raise RuntimeError(f"LDAP add {dn} failed: {self.conn.result}")

    def user_dn(self, uid: str) -> str:
        return f"uid={uid},{self.people}"

    def group_dn(self, cn: str) -> str:
        return f"cn={cn},{self.groups}"

    def add_user(self, uid: str, password: str, *, groups: tuple[str, ...] = ()) -> str:
        """Add a person (inetOrgPerson) and put them into these groups, created as needed."""
        dn = self.user_dn(uid)
        self._add(dn, ["inetOrgPerson"], {"uid": uid, "cn": uid, "sn": uid, "mail": f"{uid}@example.org",
                                          "userPassword": ssha(password)})
        for group in groups:
            self.add_member(group, uid)
        return dn

    def add_member(self, group: str, uid: str) -> None:
        """Put a person into a group, creating the group on first use."""
        from ldap3 import MODIFY_ADD

        dn = self.group_dn(group)
        if not self.conn.search(dn, "(objectClass=*)", search_scope="BASE"):
            self._add(dn, ["groupOfNames"], {"cn": group, "member": [self.user_dn(uid)]})
            return
        if not self.conn.modify(dn, {"member": [(MODIFY_ADD, [self.user_dn(uid)])]}):
            raise RuntimeError(f"LDAP modify {dn} failed: {self.conn.result}")

    def remove_member(self, group: str, uid: str) -> None:
        """Take a person out of a group (groupOfNames needs one member: a placeholder stays)."""
        from ldap3 import MODIFY_ADD, MODIFY_DELETE

        dn = self.group_dn(group)
        self.conn.modify(dn, {"member": [(MODIFY_ADD, [f"cn=nobody,{self.base}"])]})
        if not self.conn.modify(dn, {"member": [(MODIFY_DELETE, [self.user_dn(uid)])]}):
            raise RuntimeError(f"LDAP modify {dn} failed: {self.conn.result}")

    def set_password(self, uid: str, password: str) -> None:
        from ldap3 import MODIFY_REPLACE

        self.conn.modify(self.user_dn(uid), {"userPassword": [(MODIFY_REPLACE, [ssha(password)])]})

    def close(self) -> None:
        self.conn.unbind()
