"""Account commands: deactivate, demote, delete (the last active admin is never removed)."""
from __future__ import annotations

import click

from irisrag.cli import command
from irisrag.models import User
from irisrag.services.admin import admin as admin_service


@command("set-active")
@click.argument("name")
@click.option("--active/--inactive", default=True, help="Activate (default) or deactivate the account.")
def set_active(name: str, active: bool) -> None:
    """Activate or deactivate an account (deactivating ends its sessions)."""
    user = admin_service.set_active(admin_service.get(User, name).id, active)
    click.echo(f"{user.username} is {'active' if user.is_active else 'inactive'}.")


@command("set-admin")
@click.argument("name")
@click.option("--admin/--no-admin", default=True, help="Grant (default) or take the admin rights.")
def set_admin(name: str, admin: bool) -> None:
    """Grant or take an account's admin rights."""
    user = admin_service.get(User, name)
    user = admin_service.update_user(user.id, username=user.username, is_admin=admin)
    click.echo(f"{user.username} is {'an admin' if user.is_admin else 'not an admin'}.")


@command("delete-user")
@click.argument("name")
@click.confirmation_option(prompt="Delete this account with its memberships, history and API keys?")
def delete_user(name: str) -> None:
    """Delete an account."""
    admin_service.delete_user(admin_service.get(User, name).id)
    click.echo(f"Deleted {name}.")
