"""Peewee models; import them from here."""
from irisrag.models.access import Area, AreaGroup, Group, LoginAttempt, User, UserGroup
from irisrag.models.api_keys import ApiKey, ApiKeyArea
from irisrag.models.documents import Document
from irisrag.models.schema import SchemaVersion

ALL_MODELS = (User, Group, Area, UserGroup, AreaGroup, LoginAttempt, Document, SchemaVersion,
              ApiKey, ApiKeyArea)

__all__ = ["ApiKey", "ApiKeyArea", "Area", "AreaGroup", "Document", "Group", "LoginAttempt", "SchemaVersion", "User", "UserGroup", "ALL_MODELS"]
