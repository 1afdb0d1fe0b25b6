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
from irisrag.models.sources import Source, SyncRun

ALL_MODELS = (User, Group, Area, UserGroup, AreaGroup, LoginAttempt, Document, SchemaVersion, EvalRun,
              ApiKey, ApiKeyArea, Conversation, QuestionLog, Feedback, DirectoryGroupMapping, Source, SyncRun)

__all__ = ["ApiKey", "ApiKeyArea", "Area", "AreaGroup", "Conversation", "DirectoryGroupMapping", "Document", "EvalRun", "Feedback", "Group", "LoginAttempt", "QuestionLog", "SchemaVersion", "Source", "SyncRun", "User", "UserGroup", "ALL_MODELS"]
