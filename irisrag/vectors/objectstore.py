"""File access to where LanceDB lives: a local directory or an ``s3://`` prefix (backup, restore).

LanceDB reads its object-store settings from the standard ``AWS_*`` variables and from
``storage_options`` (the ``LANCEDB_STORAGE_OPTIONS`` setting, which wins). This module reads
the same two sources, so a backup reaches exactly the store the app writes to, through
pyarrow's S3 filesystem.
"""
from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pyarrow.fs as pafs

# object_store's option names (and aliases) -> one canonical name each.
_ALIASES = {
    "aws_access_key_id": "key", "access_key_id": "key",
    "aws_secret_access_key": "secret", "secret_access_key": "secret",
    "aws_session_token": "token", "session_token": "token", "aws_token": "token", "token": "token",
    "aws_region": "region", "region": "region", "aws_default_region": "region",
    "aws_endpoint": "endpoint", "aws_endpoint_url": "endpoint", "endpoint": "endpoint", "endpoint_url": "endpoint",
    "aws_allow_http": "allow_http", "allow_http": "allow_http",
    "aws_virtual_hosted_style_request": "virtual_hosted", "virtual_hosted_style_request": "virtual_hosted",
}


@dataclass(frozen=True)
class Location:
    """A filesystem and the root path of the LanceDB tables in it."""

    fs: Any
    root: str
    uri: str

    @property
    def local(self) -> bool:
        return isinstance(self.fs, pafs.LocalFileSystem)

    def files(self, below: str | None = None) -> Iterator[tuple[str, int]]:
        """Yield (path relative to ``below`` or the root, size) of every file there, sorted."""
        base = below or self.root
        selector = pafs.FileSelector(base, recursive=True, allow_not_found=True)
        infos = sorted((i for i in self.fs.get_file_info(selector) if i.type == pafs.FileType.File),
                       key=lambda i: i.path)
        for info in infos:
            yield info.path[len(base.rstrip("/")) + 1:], info.size

    def is_empty(self) -> bool:
        return next(self.files(), None) is None

    def download(self, rel: str, target: Path) -> None:
        """Copy one file below the root to a local path (FileNotFoundError if it vanished)."""
        target.parent.mkdir(parents=True, exist_ok=True)
        with self.fs.open_input_stream(f"{self.root}/{rel}") as source, open(target, "wb") as sink:
            while block := source.read(1 << 20):
                sink.write(block)

    def replace_with(self, directory: Path) -> None:
        """Delete everything below the root, then upload a local directory's files there."""
        if self.local:
            self.fs.delete_dir_contents(self.root, missing_dir_ok=True)
            self.fs.create_dir(self.root)
        else:
            for rel, _size in list(self.files()):
                self.fs.delete_file(f"{self.root}/{rel}")
        if directory.is_dir():
            pafs.copy_files(str(directory), self.root, source_filesystem=pafs.LocalFileSystem(),
                            destination_filesystem=self.fs)


def _options(storage_options: Mapping[str, str], environ: Mapping[str, str]) -> dict[str, str]:
    """Merge AWS_* variables and storage options (the latter win) under canonical names."""
    merged: dict[str, str] = {}
    for source in (
        {k.lower(): v for k, v in environ.items() if k.startswith("AWS_")},
        {k.lower(): v for k, v in storage_options.items()},
    ):
        for key, value in source.items():
            if key in _ALIASES and value != "":
                merged[_ALIASES[key]] = str(value)
    return merged


def s3_filesystem(storage_options: Mapping[str, str], environ: Mapping[str, str] | None = None) -> Any:
    """Return a pyarrow S3 filesystem configured like LanceDB's object store."""
    options = _options(storage_options, os.environ if environ is None else environ)
    kwargs: dict[str, Any] = {"region": options.get("region", "us-east-1"), "connect_timeout": 5,
                              "request_timeout": 60}
    if "key" in options and "secret" in options:
        kwargs.update(access_key=options["key"], secret_key=options["secret"], session_token=options.get("token"))
    if "endpoint" in options:
        endpoint = urlparse(options["endpoint"] if "://" in options["endpoint"] else f"https://{options['endpoint']}")
        kwargs.update(endpoint_override=endpoint.netloc, scheme=endpoint.scheme)
    if options.get("virtual_hosted", "").lower() == "true":
        kwargs["force_virtual_addressing"] = True
    return pafs.S3FileSystem(**kwargs)


def location(uri: str, storage_options: Mapping[str, str] | None = None,
             environ: Mapping[str, str] | None = None) -> Location:
    """Return the filesystem and root of a LanceDB URI (a local path or ``s3://bucket/prefix``)."""
    parsed = urlparse(uri)
    if "://" not in uri:
        return Location(pafs.LocalFileSystem(), str(Path(uri).resolve()), uri)
    if parsed.scheme not in ("s3", "s3a"):
        raise ValueError(f"backup supports local directories and s3:// URIs, not {parsed.scheme}://")
    root = f"{parsed.netloc}/{parsed.path.strip('/')}".rstrip("/")
    return Location(s3_filesystem(storage_options or {}, environ), root, uri)
