"""Setup commands: schema, accounts, groups, areas, links, listing."""
from __future__ import annotations

import json
import sys

import click

from irisrag.cli import command
from irisrag.models import Area, Group, User
from irisrag.models.schema import upgrade
from irisrag.services.admin import admin as admin_service
from irisrag.services.operations.system import add_boilerplate, add_search_text


@command("init-db")
def init_db() -> None:
    """Create or upgrade the database schema (and the chunk tables' search text and navigation mark columns)."""
    before, after = upgrade()
    click.echo(f"Schema at version {after} (was {before}).")
    for name in add_search_text():
        click.echo(f"Table {name}: search text column added, full-text index rebuilt "
                   f"(run `flask rag rebuild --all` for titles and compound parts).")
    for name in add_boilerplate():
        click.echo(f"Table {name}: navigation mark column added (run `flask rag rebuild --all` to mark "
                   f"tables of contents and navigation in documents imported before).")


def _read_password(password_stdin: bool) -> str:
    if password_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    return click.prompt("Password", hide_input=True, confirmation_prompt=True)


@command("create-user")
@click.argument("name")
@click.option("--admin", is_flag=True, help="The account may log in to the admin console.")
@click.option("--password-stdin", is_flag=True, help="Read the password from standard input.")
def create_user(name: str, admin: bool, password_stdin: bool) -> None:
    """Create a user (or admin) account."""
    user = admin_service.create_user(name, _read_password(password_stdin), is_admin=admin)
    click.echo(f"Created {'admin' if admin else 'user'} {user.username} (id {user.id}).")


@command("create-group")
@click.argument("name")
@click.option("--description", default="")
def create_group(name: str, description: str) -> None:
    """Create a group."""
    group = admin_service.create_named(Group, name, description)
    click.echo(f"Created group {group.name} (id {group.id}).")


@command("create-area")
@click.argument("name")
@click.option("--description", default="")
def create_area(name: str, description: str) -> None:
    """Create an area."""
    area = admin_service.create_named(Area, name, description)
    click.echo(f"Created area {area.name} (id {area.id}).")


@command("link-user")
@click.argument("user")
@click.argument("group")
def link_user(user: str, group: str) -> None:
    """Add USER to GROUP."""
    created = admin_service.link_user(user, group)
    click.echo(f"{user} is {'now' if created else 'already'} in group {group}.")


@command("link-area")
@click.argument("area")
@click.argument("group")
def link_area(area: str, group: str) -> None:
    """Grant AREA to GROUP."""
    created = admin_service.link_area(area, group)
    click.echo(f"Area {area} is {'now' if created else 'already'} granted to {group}.")


@command("unlink-user")
@click.argument("user")
@click.argument("group")
def unlink_user(user: str, group: str) -> None:
    """Remove USER from GROUP."""
    removed = admin_service.unlink_user(user, group)
    click.echo(f"{user} {'removed from' if removed else 'was not in'} group {group}.")


@command("unlink-area")
@click.argument("area")
@click.argument("group")
def unlink_area(area: str, group: str) -> None:
    """Withdraw AREA from GROUP."""
    removed = admin_service.unlink_area(area, group)
    click.echo(f"Area {area} {'withdrawn from' if removed else 'was not granted to'} {group}.")


@command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def list_all(as_json: bool) -> None:
    """List users, groups, areas and links."""
    data = admin_service.overview()
    out = {
        "users": [{"id": u.id, "name": u.username, "admin": u.is_admin, "active": u.is_active} for u in data["users"]],
        "groups": [{"id": g.id, "name": g.name} for g in data["groups"]],
        "areas": [{"id": a.id, "name": a.name} for a in data["areas"]],
        "user_groups": [{"user": ug.user.username, "group": ug.group.name} for ug in data["user_groups"]],
        "area_groups": [{"area": ag.area.name, "group": ag.group.name} for ag in data["area_groups"]],
    }
    if as_json:
        click.echo(json.dumps(out, indent=2, ensure_ascii=False))
        return
    for key, rows in out.items():
        click.echo(f"{key}:")
        for row in rows:
            click.echo("  " + ", ".join(f"{k}={v}" for k, v in row.items()))
        if not rows:
            click.echo("  (none)")


@command("ensure-admin")
@click.option("--name", default="admin", show_default=True)
def ensure_admin(name: str) -> None:
    """Create the first admin on a new system; print its generated password once.

    Takes the password from IRISRAG_ADMIN_PASSWORD when set. Does nothing when an
    admin account exists already.
    """
    import os
    import secrets

    if User.select().where(User.is_admin == True).exists():  # noqa: E712
        return
    password = os.environ.get("IRISRAG_ADMIN_PASSWORD") or secrets.token_urlsafe(12)
    admin_service.create_user(name, password, is_admin=True)
    shown = "(from IRISRAG_ADMIN_PASSWORD)" if os.environ.get("IRISRAG_ADMIN_PASSWORD") else password
    click.echo(f"Created admin account '{name}' with password: {shown}\nIt is shown only once; change it in the admin console.")
