"""Typed domain errors: each carries a message id with its parameters, and a technical detail.

The message id is English text marked with ``N_`` (so the catalogue extraction finds it), with
named ``%(name)s`` placeholders filled from ``params`` — never a formatted f-string. Edges
translate it: the web in the user's language (``translated``), the API and the CLI in English
(``message``) with the stable ``code``, a job stores it on the row (``stored``).
"""
from __future__ import annotations

from irisrag.i18n import english, render, stored_message


class IrisRagError(Exception):
    """Base of every expected error; ``code`` is stable for the API."""

    code = "error"
    status = 400

    def __init__(self, message: str, detail: str = "", *, params: dict | None = None) -> None:
        self.msgid = message
        self.params = dict(params or {})
        message = english(message, self.params)
        super().__init__(message)
        self.message = message
        self.detail = detail

    def translated(self, gettext) -> str:
        """Return the message in the user's language (params marked as labels are translated too)."""
        return render(self.msgid, self.params, gettext)

    @property
    def stored(self) -> str:
        """The message as a text column keeps it (``irisrag.i18n.stored_message``), for the ``translated`` filter."""
        return stored_message(self.msgid, self.params)

    def __str__(self) -> str:
        return self.message


class ValidationError(IrisRagError):
    """Bad input from a form, the CLI or the API; ``field`` names the input."""

    code = "invalid"

    def __init__(self, message: str, detail: str = "", field: str | None = None, *,
                 params: dict | None = None) -> None:
        super().__init__(message, detail, params=params)
        self.field = field


class NotFound(IrisRagError):
    code = "not_found"
    status = 404


class Conflict(IrisRagError):
    """A duplicate name, or an action refused because of dependent data."""

    code = "conflict"
    status = 409


class Forbidden(IrisRagError):
    code = "forbidden"
    status = 403


class ConfigurationError(IrisRagError):
    code = "configuration"
    status = 500


# --- import -----------------------------------------------------------------

class ImportError_(IrisRagError):  # noqa: N801 - avoid shadowing the builtin
    code = "import_failed"


class UnsupportedFileType(ImportError_):
    code = "unsupported_type"


class InvalidFileName(ImportError_):
    code = "invalid_file_name"


class FileTooLarge(ImportError_):
    code = "too_large"
    status = 413


class PathOutsideVolume(ImportError_):
    code = "path_outside_volume"
    status = 403


class ImportStopped(ImportError_):
    """The row left the running states under its job (cancelled, or failed meanwhile): the job stops."""

    code = "import_stopped"
    status = 409


class ExtractionError(ImportError_):
    """The file could not be read or yielded no text."""

    code = "extraction_failed"


class DuplicateContent(ImportError_):
    """The file's content (SHA-256) is already held by another document of the same area."""

    code = "duplicate_content"
    status = 409


class FetchError(ImportError_):
    """A URL could not be fetched (HTTP error, timeout, wrong content, too large)."""

    code = "fetch_failed"
    status = 502

    def __init__(self, message: str, detail: str = "", *, retryable: bool = False,
                 params: dict | None = None, http_status: int | None = None) -> None:
        super().__init__(message, detail, params=params)
        self.retryable = retryable  # a network hiccup or a server error: trying later may work
        self.http_status = http_status  # the server's answer, when it gave one (a sync: 404/410 mean gone)


class InvalidUrl(FetchError):
    """A URL that cannot be fetched as written (no host, a bad port or IPv6 literal): bad input, 400 at every edge."""

    code = "invalid"
    status = 400
    field = "url"


class BlockedAddress(FetchError):
    """The URL points to an address the SSRF guard refuses."""

    code = "blocked_address"
    status = 403


class HostNotFound(FetchError):
    """The URL's host name does not resolve (now: DNS may answer later)."""

    code = "host_not_found"


# --- services behind adapters -------------------------------------------------

class EmbeddingError(IrisRagError):
    code = "embedding_failed"
    status = 502


class VectorStoreUnwritable(IrisRagError):
    """The vector store refused a write for lack of permission (or a read-only file system)."""

    code = "vector_store_unwritable"
    status = 503


class EmbedderMismatch(IrisRagError):
    """Stored vectors were made by another embedder; a re-embed (rebuild) is needed."""

    code = "embedder_mismatch"
    status = 409


class LLMUnavailable(IrisRagError):
    """The language model gave no usable answer; the subclasses say why (services choose the message by type)."""

    code = "llm_unavailable"
    status = 503


class LLMNotConfigured(LLMUnavailable):
    """No language model is configured (IRISRAG_LLM=none)."""


class LLMTimeout(LLMUnavailable):
    """The model did not answer, or stopped sending, within the timeout."""


class LLMUnreachable(LLMUnavailable):
    """The model's server could not be reached, or the connection broke off."""


class LLMRefused(LLMUnavailable):
    """The server answered with an error (an HTTP error status, or an error reported in the answer)."""


class LLMContextTooLong(LLMRefused):
    """The server refused the request: the prompt did not fit the model's context window."""


class LLMModelNotFound(LLMRefused):
    """The server does not have the configured model."""


class LLMCutOff(LLMUnavailable):
    """The model stopped at the length limit (finish reason ``length``); ``partial`` is what it wrote."""

    def __init__(self, message: str, detail: str = "", *, partial: str = "", params: dict | None = None) -> None:
        super().__init__(message, detail, params=params)
        self.partial = partial


class LLMBrokeOff(LLMUnreachable):
    """The model's stream ended without a proper finish (cut, or interrupted by the server)."""


class QueueUnavailable(IrisRagError):
    code = "queue_unavailable"
    status = 503


# --- single sign-on -------------------------------------------------------------

class SignInRefused(IrisRagError):
    """An LDAP or OIDC sign-in was refused (wrong password, forged callback, no account allowed)."""

    code = "sign_in_refused"
    status = 401


class DirectoryUnavailable(IrisRagError):
    """The LDAP server or the OpenID provider cannot be reached: nobody is let in meanwhile."""

    code = "directory_unavailable"
    status = 503
