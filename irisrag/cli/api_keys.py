"""API key commands: create (prints the key once), revoke, list."""
from __future__ import annotations

import json

import click

from irisrag.cli import command
from irisrag.services.admin import api_keys


@command("create-api-key")
@click.argument("user")
@click.option("--area", "areas", multiple=True, help="Limit the key to this area of the user (repeatable).")
@click.option("--name", default="", help="A label for the key (who or what uses it).")
def create_api_key(user: str, areas: tuple[str, ...], name: str) -> None:
    """Create an API key for USER and print it once (stdout: the key only, for scripts)."""
    created = api_keys.create_key(user, name=name, areas=list(areas))
    scope = ", ".join(areas) if areas else "all areas of the user"
    click.echo(f"Created API key {created.key.prefix}… (id {created.key.id}) for {user}: {scope}. "
               "It is shown only once; store it now.", err=True)
    click.echo(created.plain)


@command("revoke-api-key")
@click.argument("key")
def revoke_api_key(key: str) -> None:
    """Revoke KEY (its id, its shown prefix irk_<id>_…, or the whole key)."""
    revoked = api_keys.revoke_key(key)
    click.echo(f"Revoked API key {revoked.prefix}… (id {revoked.id}).")


@command("list-api-keys")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def list_api_keys(as_json: bool) -> None:
    """List API keys (never their secrets)."""
    rows = [{"id": k.id, "prefix": k.prefix, "name": k.name, "user": k.username,
             "areas": list(k.areas) if k.limited else None,
             "created_at": k.created_at.isoformat(timespec="seconds"),
             "last_used_at": k.last_used_at.isoformat(timespec="seconds") if k.last_used_at else None,
             "revoked_at": k.revoked_at.isoformat(timespec="seconds") if k.revoked_at else None}
            for k in api_keys.list_keys()]
    if as_json:
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    for row in rows:
        click.echo("  ".join(f"{k}={v}" for k, v in row.items() if v not in (None, "")))
    if not rows:
        click.echo("(no API keys)")
