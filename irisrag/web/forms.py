"""WTForms for the login pages and the admin console (CSRF comes with FlaskForm)."""
from __future__ import annotations

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import BooleanField, PasswordField, SelectField, StringField, TextAreaField
from wtforms.validators import DataRequired, Length


class LoginForm(FlaskForm):
    username = StringField(_l("Username"), validators=[DataRequired(), Length(max=150)])
    password = PasswordField(_l("Password"), validators=[DataRequired(), Length(max=1024)])


class UserForm(FlaskForm):
    username = StringField(_l("Username"), validators=[DataRequired(), Length(max=150)])
    password = PasswordField(_l("Password"), validators=[DataRequired(), Length(max=1024)])
    is_admin = BooleanField(_l("Administrator"))


class UserEditForm(FlaskForm):
    username = StringField(_l("Username"), validators=[DataRequired(), Length(max=150)])
    is_admin = BooleanField(_l("Administrator"))


class PasswordForm(FlaskForm):
    password = PasswordField(_l("New password"), validators=[DataRequired(), Length(max=1024)])


class NamedForm(FlaskForm):
    name = StringField(_l("Name"), validators=[DataRequired(), Length(max=150)])
    description = TextAreaField(_l("Description"), validators=[Length(max=2000)])


class UserLinkForm(FlaskForm):
    user = SelectField(_l("User"), coerce=int)
    group = SelectField(_l("Group"), coerce=int)


class AreaLinkForm(FlaskForm):
    area = SelectField(_l("Area"), coerce=int)
    group = SelectField(_l("Group"), coerce=int)


class ConfirmForm(FlaskForm):
    """An empty form: only the CSRF token (delete, toggle, unlink)."""
