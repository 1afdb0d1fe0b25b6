"""Peewee models; import them from here."""
from irisrag.models.access import (
    Area,
    AreaGroup,
    DirectoryGroupMapping,
    Group,
    LoginAttempt,
    User,
    UserGroup,
)
from irisrag.models.api_keys import ApiKey, ApiKeyArea
from irisrag.models.documents import Document
from irisrag.models.evaluation import EvalRun
from irisrag.models.history import Conversation, Feedback, QuestionLog
from irisrag.models.schema import SchemaVersion

ALL_MODELS = (User, Group, Area, UserGroup, AreaGroup, LoginAttempt, Document, SchemaVersion, EvalRun,
              ApiKey, ApiKeyArea, Conversation, QuestionLog, Feedback, DirectoryGroupMapping)

__all__ = ["ApiKey", "ApiKeyArea", "Area", "AreaGroup", "Conversation", "DirectoryGroupMapping", "Document", "EvalRun", "Feedback", "Group", "LoginAttempt", "QuestionLog", "SchemaVersion", "User", "UserGroup", "ALL_MODELS"]
