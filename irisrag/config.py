"""The one table of settings and their defaults.

Three kinds of values, each with its default here and nowhere else:

``SETTINGS``        what an operator sets, as ``IRISRAG_<KEY>`` environment variables (or
                    ``.env``), grouped by topic for docs/configuration.md (`make readme`);
``PROFILE_FIELDS``  the retrieval tuning constants, in named profiles calibrated per embedder
                    (``PROFILES``; IRISRAG_RETRIEVAL_PROFILE, by default the EMBEDDER's);
``INTERNAL``        constants in code with a name, and ``TEST_ONLY`` values for tests.

Profile fields and internal values are not read from the environment: the overrides passed to
``create_app`` may set them (tests do), and so may ``IRISRAG_TEST_OVERRIDES`` (a JSON object,
for the processes tests start). Read once by ``create_app`` (``load``): defaults, then the
environment, then the overrides. An ``IRISRAG_*`` variable that is no setting, or a value a
setting does not accept, stops the start with a ``ConfigError`` that says what to write
instead. Nothing here reads the environment at import.
"""
from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from difflib import get_close_matches
from pathlib import Path
from typing import Any

from irisrag.timezones import parse_timezone


class ConfigError(ValueError):
    """A setting the start refuses: unknown, or a value it does not accept (the message says which)."""


@dataclass(frozen=True)
class Setting:
    key: str
    default: Any
    help: str
    parse: Callable[[str], Any] = str
    group: str = ""


def _group(name: str, *settings: Setting) -> tuple[Setting, ...]:
    return tuple(replace(s, group=name) for s in settings)


def _bool(value: str | bool) -> bool:
    """Parse a yes/no setting (an already parsed bool passes through: config mappings hold both)."""
    return value if isinstance(value, bool) else str(value).strip().lower() in {"1", "true", "yes", "on"}


parse_bool = _bool  # for settings classes that build themselves from a config mapping

_YES, _NO = {"1", "true", "yes", "on"}, {"0", "false", "no", "off", ""}


def _flag(value: str) -> bool:
    """Parse a yes/no variable strictly: a typo such as `maybe` must not silently mean no."""
    text = value.strip().lower()
    if text not in _YES | _NO:
        raise ValueError("true or false (also 1/0, yes/no, on/off)")
    return text in _YES


def _list(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


def _allowlist(value: str) -> list[str]:
    """Split the URL allowlist and refuse an entry that is not a host, host:port or network."""
    from irisrag.ingest.netguard import Allowlist

    entries = _list(value)
    Allowlist.parse(entries)  # raises a ValueError that names the entry
    return entries


def _count(value: str) -> int:
    number = _whole(value)
    if number < 0:
        raise ValueError("must not be negative")
    return number


def _index_type(value: str) -> str:
    kind = value.strip().upper()
    if kind not in ("IVF_SQ", "IVF_HNSW_SQ"):
        raise ValueError("one of IVF_SQ, IVF_HNSW_SQ")
    return kind


def _choice(*allowed: str) -> Callable[[str], str]:
    def parse(value: str) -> str:
        kind = value.strip().lower()
        if kind not in allowed:
            raise ValueError(f"one of {', '.join(allowed)}")
        return kind
    return parse


def _whole(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise ValueError("a whole number") from None


def _positive(value: str) -> int:
    number = _whole(value)
    if number < 1:
        raise ValueError("must be at least 1")
    return number


def _fts_language(value: str) -> str:
    """A stemming language of the full-text index, spelt as LanceDB names it."""
    from irisrag.vectors.index import FTS_LANGUAGES

    found = [name for name in FTS_LANGUAGES if name.lower() == value.strip().lower()]
    if not found:
        raise ValueError(f"one of {', '.join(FTS_LANGUAGES)}")
    return found[0]


def _profile(value: str) -> str:
    """A retrieval profile's name, or empty for the EMBEDDER's (``PROFILES``)."""
    name = value.strip().lower()
    if name and name not in ("use", "e5", "generic"):
        raise ValueError("use, e5 or generic (empty: the EMBEDDER's)")
    return name


def _fraction(value: str) -> float:
    number = float(value)
    if not 0.0 <= number <= 1.0:
        raise ValueError("must be between 0 and 1")
    return number


def _storage_options(value: str) -> dict[str, str]:
    """Parse a JSON object of object-store options (all values become strings, as LanceDB wants)."""
    text = value.strip()
    if not text:
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON: {exc.msg}") from exc
    if not isinstance(data, dict):
        raise ValueError('a JSON object, e.g. {"aws_endpoint": "http://127.0.0.1:8333"}')
    return {str(k): str(v).lower() if isinstance(v, bool) else str(v) for k, v in data.items()}


def _json_map(value: str) -> dict[str, list[str]]:
    """Parse a group map: a JSON object from a directory group to an IrisRAG group name or a list of them."""
    try:
        data = json.loads(value) if value.strip() else {}
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise ValueError('a JSON object such as {"cn=staff,ou=groups,dc=example,dc=org": "Staff"}')
    result: dict[str, list[str]] = {}
    for key, target in data.items():
        names = [target] if isinstance(target, str) else target
        if not isinstance(names, list) or not all(isinstance(n, str) and n.strip() for n in names):
            raise ValueError(f"the value for {key!r} must be a group name or a list of names")
        result[str(key)] = [n.strip() for n in names]
    return result


def _group_list(value: str) -> list[str]:
    """Parse directory group names: a JSON list, or names separated by `;` (DNs contain commas)."""
    text = value.strip()
    if text.startswith("["):
        data = json.loads(text)
        if not isinstance(data, list) or not all(isinstance(item, str) for item in data):
            raise ValueError("a JSON list of strings")
        return [item.strip() for item in data if item.strip()]
    return [part.strip() for part in text.split(";") if part.strip()]


_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def _seconds(value: str) -> float:
    """Parse a number of seconds that is finite and not negative."""
    seconds = float(value)
    if not math.isfinite(seconds) or seconds < 0:
        raise ValueError("a number of seconds, 0 or more")
    return seconds


def _duration(value: str) -> float:
    """Parse seconds or a number with s/m/h/d; at least 60 s (shorter breaks readers on old versions)."""
    text = value.strip().lower()
    seconds = float(text[:-1]) * _UNITS[text[-1]] if text[-1:] in _UNITS else float(text)
    if seconds < 60:
        raise ValueError("at least 60 seconds: readers may still use versions younger than that")
    return seconds


SETTINGS: tuple[Setting, ...] = (
    *_group(
        "Storage and processes",
        Setting("SECRET_KEY", None, "Session signing key. Required outside testing; `make run` generates one into `instance/secret_key`."),
        Setting("INSTANCE_PATH", "instance", "Folder for local state (secret key file, default database, LanceDB, staging); relative paths resolve against the project root."),
        Setting("DATABASE_URL", "sqlite:///instance/irisrag.db", "Metadata database: `sqlite:///path` (WAL mode) or `postgresql://user@host/db`."),
        Setting("PORT", 5000, "Port the web server listens on at 127.0.0.1 under `make run` (read by the Procfile's `web` line and by the start-up box that shows the URLs).", int),
        Setting("REDIS_URL", "redis://127.0.0.1:6379/0", "Redis for the RQ job queue."),
        Setting("LANCEDB_URI", "instance/lancedb", "LanceDB location: a local directory or an object-store URI (`s3://bucket/path`)."),
        Setting("LANCEDB_STORAGE_OPTIONS", {}, "Object-store options for an `s3://` LanceDB URI as a JSON object, e.g. `{\"aws_endpoint\": \"http://s3.internal:8333\", \"allow_http\": \"true\"}`; they override the standard `AWS_*` variables (docs/install.md#deployment-and-scale-out). Keep secrets in `AWS_*` or the environment file.", _storage_options),
        Setting("UPLOAD_ROOT", "instance/staging", "Staging root; holds `upload/` (browser uploads) and `url/` (fetched pages)."),
    ),
    *_group(
        "Imports",
        Setting("SRC_VOLUME_PATH", "", "Source volume for import by path; empty disables path imports."),
        Setting("MAX_UPLOAD_BYTES", 50 * 1024 * 1024, "Largest accepted upload or fetched body in bytes.", int),
        Setting("URL_ALLOWLIST", [], "Comma-separated entries URL import may reach although private/loopback: `host`, `*.domain`, an IP or a network (CIDR), each optionally with `:port` (`wiki.intern:8080`, `[fd00::1]:443`; then only that port). Redirects are checked by the same rules. An entry that cannot be parsed stops the app at start.", _allowlist),
        Setting("OCR_LANGUAGES", "deu+eng", "Languages tesseract reads scanned PDF pages and images in (`-l`, joined by `+`; each needs its `tesseract-ocr-LANG` package).", str),
        Setting("CRAWL_DELAY", 1.0, "Seconds a source sync waits between two requests to the same host (one request at a time per host); `0`: no pause.", _seconds),
        Setting("SYNC_REMOVED_GRACE", 7 * 86400.0, "How long a document whose page or file is gone at its source (HTTP 404/410, or the file removed) stays, marked \"removed at source\", before a sync deletes it: seconds, or `30m`, `12h`, `7d` (at least 60 s). A failed fetch (network error, 5xx) never counts as gone.", _duration),
        Setting("CHUNK_SIZE", 700, "Characters per chunk (neighbouring chunks share 150 of them, so more than that).", _positive),
    ),
    *_group(
        "Security",
        Setting("LOGIN_RATE_LIMIT", 5, "Failed logins allowed per account and client address within 5 minutes (at least 1).", _positive),
        Setting("TRUSTED_PROXIES", 0, "Reverse proxies in front of the app that set X-Forwarded-For/-Proto/-Host (count of hops, werkzeug ProxyFix); `0` trusts no such header. Behind one nginx: `1`. Never higher than the real number of proxies: clients could then choose their own address for the login rate limit.", _count),
        Setting("SESSION_COOKIE_SECURE", False, "Send session cookies over HTTPS only (turn on behind TLS).", _flag),
    ),
    *_group(
        "Embedder and language model",
        Setting("EMBEDDER", "use", "Embedder: `use` (built-in multilingual USE, offline, fast), `e5` (built-in multilingual-e5-small, offline, better but ~15x slower to import), `ollama`, `openai`, `fake` (tests).", _choice("use", "e5", "ollama", "openai", "fake")),
        Setting("OLLAMA_URL", "http://127.0.0.1:11434", "Ollama base URL (embeddings `/api/embed`, chat `/api/chat`)."),
        Setting("OLLAMA_EMBED_MODEL", "nomic-embed-text", "Ollama embedding model."),
        Setting("OLLAMA_CHAT_MODEL", "llama3", "Ollama chat model."),
        Setting("OPENAI_BASE_URL", "http://127.0.0.1:8000/v1", "Base URL of an OpenAI-compatible server (`/v1`)."),
        Setting("OPENAI_API_KEY", "", "API key for the OpenAI-compatible server (may be empty for local servers)."),
        Setting("OPENAI_EMBED_MODEL", "text-embedding-3-small", "Embedding model on the OpenAI-compatible server."),
        Setting("EMBEDDING_DIM", 0, "Dimension the Ollama or OpenAI-compatible embedding model answers with; `0`: its default model's (768 for Ollama's `nomic-embed-text`, 1536 for `text-embedding-3-small`).", _count),
        Setting("OPENAI_CHAT_MODEL", "gpt-4o-mini", "Chat model on the OpenAI-compatible server."),
        Setting("LLM", "auto", "Answer writer: `auto` (Ollama when it answers and has OLLAMA_CHAT_MODEL, else the OpenAI-compatible server when OPENAI_BASE_URL is set, else the extractive answer, without an error), `ollama`, `openai` or `none` (extractive answer only).", _choice("auto", "ollama", "openai", "none", "fake")),
        Setting("LLM_CONTEXT_TOKENS", 4096, "Context window of the language model in tokens: passages that would not fit (estimated at 3 characters a token, with room for the answer) are left out, lowest-ranked first, and the answer says how many.", _positive),
    ),
    *_group(
        "Retrieval",
        Setting("RETRIEVAL_PROFILE", "", "The retrieval tuning (candidates, fusion, gate, term bridge, caps; docs/configuration.md#retrieval-profiles) calibrated for an embedder: `use`, `e5` or `generic` (any other embedder); empty: the EMBEDDER's (`use` for `use`, `e5` for `e5`, else `generic`).", _profile),
        Setting("FTS_LANGUAGE", "German", "Stemming language of the full-text index (`German`, `English`, ...); a change rebuilds the index at the next import.", _fts_language),
    ),
    *_group(
        "Pages",
        Setting("TIMEZONE", "Europe/Berlin", "Time zone the pages show dates and times in (an IANA name such as `Europe/Berlin` or `UTC`); stored times stay UTC. An unknown zone stops the start.", parse_timezone),
    ),
    *_group(
        "History",
        Setting("HISTORY_RETENTION_DAYS", 90, "Days a question, its answer and its feedback are kept in the user's conversations (a conversation left without questions goes with them); `0` keeps them forever. `flask rag prune-history` deletes older ones (the worker's sweep does it too, at most hourly).", int),
        Setting("MISSING_ANSWERS_SHOW_USERS", False, "Show admins who asked each question on the missing-answers page and in its API (`GET /api/v1/missing-answers`); off: the names are not even read. Users never see it.", _flag),
    ),
    *_group(
        "Single sign-on: LDAP",
        Setting("LOCAL_LOGIN", "on", "Password login for local accounts: `on`, `admins` (only local accounts with the admin flag: the first admin, break-glass accounts) or `off` (single sign-on only). Directory accounts never have a local password.", _choice("on", "admins", "off")),
        Setting("LDAP_URL", "", "LDAP server, e.g. `ldaps://dc1.corp.example:636` or `ldap://ldap.example.org`; empty turns LDAP login off."),
        Setting("LDAP_START_TLS", False, "Upgrade an `ldap://` connection with StartTLS before anything is sent (refused logins when TLS fails, never a plain fallback).", _flag),
        Setting("LDAP_BIND_DN", "", "Service account that searches for users (search-then-bind); empty with LDAP_USER_DN_TEMPLATE binds directly as the user."),
        Setting("LDAP_BIND_PASSWORD", "", "Password of LDAP_BIND_DN."),
        Setting("LDAP_USER_DN_TEMPLATE", "", "Direct bind: the user's bind name with `{username}`, e.g. `uid={username},ou=people,dc=example,dc=org` or `{username}@corp.example` (AD); the name is escaped."),
        Setting("LDAP_USER_BASE", "", "Where users are searched (subtree), e.g. `ou=people,dc=example,dc=org`."),
        Setting("LDAP_USERNAME_ATTRIBUTE", "uid", "Attribute holding the login name: `uid` (OpenLDAP), `sAMAccountName` (Active Directory)."),
        Setting("LDAP_GROUP_BASE", "", "Where groups are searched; empty reads the user's `memberOf` attribute instead (Active Directory, OpenLDAP with the memberof overlay)."),
        Setting("LDAP_GROUP_MAP", {}, 'Directory group DN -> IrisRAG group(s), JSON: `{"cn=staff,ou=groups,dc=example,dc=org": "Staff"}`; more mappings in the admin console (tab *Directory groups*).', _json_map),
        Setting("LDAP_ADMIN_GROUPS", [], "Directory group DNs whose members get the admin flag (`;`-separated or a JSON list).", _group_list),
    ),
    *_group(
        "Single sign-on: OpenID Connect",
        Setting("OIDC_DISCOVERY_URL", "", "OpenID Connect discovery URL (`https://idp.example/.well-known/openid-configuration`); empty turns OIDC login off."),
        Setting("OIDC_CLIENT_ID", "", "Client id registered at the provider."),
        Setting("OIDC_CLIENT_SECRET", "", "Client secret registered at the provider."),
        Setting("OIDC_SCOPES", "openid profile email", "Scopes requested; add the one that releases the groups claim if the provider needs it (e.g. `groups`)."),
        Setting("OIDC_USERNAME_CLAIM", "preferred_username", "Claim that becomes the IrisRAG user name (`preferred_username`, `email`, `upn`)."),
        Setting("OIDC_GROUPS_CLAIM", "groups", "Claim listing the user's groups (Keycloak: `groups`; Entra ID: `groups` with object ids, or `roles`)."),
        Setting("OIDC_GROUP_MAP", {}, 'Provider group -> IrisRAG group(s), JSON: `{"staff": "Staff", "/sales": ["Sales", "Staff"]}`.', _json_map),
        Setting("OIDC_ADMIN_GROUPS", [], "Provider groups whose members get the admin flag (`;`-separated or a JSON list).", _group_list),
    ),
)


# The retrieval tuning: each default is the `use` profile's value (the built-in USE embedder's).
PROFILE_FIELDS: tuple[Setting, ...] = (
    Setting("CONTEXT_CANDIDATES", 256, "Nearest chunks considered for the context.", int),
    Setting("CONTEXT_CHUNKS", 9, "Chunks in the context at most.", int),
    Setting("MAX_CHUNKS_PER_DOCUMENT", 4, "Chunks per document in the context at most.", int),
    Setting("CONTEXT_SPREAD", True, "Fill the context with each passing document's best chunk before any document's second chunk (`false`: the original's rank order, which let three documents take all CONTEXT_CHUNKS).", parse_bool),
    Setting("MIN_MATCH_TERMS", 2, "Normalised terms a chunk must share with the question ...", int),
    Setting("MIN_MATCH_SCORE", 5.0, "... or this lexical score (see docs/retrieval.md#retrieval-rules-spec-5).", float),
    Setting("MIN_SOURCE_SCORE", 1.0, "Source score a document needs to be shown as a found source.", float),
    Setting("FOUND_SOURCES_CHUNKS", 3, "Best chunks per document aggregated into its source score.", int),
    Setting("SOURCE_SCORE_RATIO", 0.5, "Shown sources score at least this share of the best source's score.", float),
    Setting("NEAREST_DOCUMENTS", 3, "When nothing reaches the context (the answer is \"no information\"), the ranking's first this many documents are listed under it as the closest documents, marked as perhaps not answering the question, so a match the gate was not sure of stays one click away; 0: none (the original).", _count),
    Setting("GATE_RULE", "evidence", "Context gate (docs/evaluation.md#what-reaches-the-user): `evidence` (a question is off-topic, and gets no passages, unless one of the first GATE_TOP_DOCUMENTS documents reaches GATE_MIN_EVIDENCE = its best cosine + GATE_COVERAGE_WEIGHT x the share of the question's term weight (IDF over the candidates) it covers - GATE_MISSING_WEIGHT x the share the candidates hold elsewhere; then the chunks of every such document pass, and others on MIN_MATCH_*), `ranked` (MIN_MATCH_*, or a chunk of the first GATE_TOP_DOCUMENTS documents with a cosine of at least GATE_MIN_SIMILARITY) or `lexical` (the original's MIN_MATCH_* rule alone).", _choice("evidence", "ranked", "lexical")),
    Setting("GATE_TOP_DOCUMENTS", 8, "Rules `evidence` and `ranked`: the ranking's first documents whose chunks may pass on the ranking's evidence.", _positive),
    Setting("GATE_MIN_EVIDENCE", 0.45, "Rule `evidence`: the evidence score a document needs for its chunks to pass; without one the question is off-topic (calibrated for the USE embedder; with `EMBEDDER=e5` and this unset, e5's calibrated 0.92; see docs/evaluation.md#the-gate-per-embedder-issue-16-fifth-step).", float),
    Setting("GATE_TRANSLATED_ALLOWANCE", 0.01, "Rule `evidence`: how much less evidence a question needs when the term bridge's word list translated it into the documents' language (cross-lingual cosines run lower; with `EMBEDDER=e5` and this unset: 0).", float),
    Setting("GATE_AGREEMENT_BONUS", 0.12, "Rule `evidence`: added to the evidence of a translated question's document when the vector search and the full-text search (with the word list's words) both rank it first (with `EMBEDDER=e5` and this unset: 0).", float),
    Setting("GATE_COVERAGE_WEIGHT", 0.85, "Rule `evidence`: weight of the share of the question's term weight (IDF over the candidates) a document's candidate chunks contain (with `EMBEDDER=e5` and this unset: 0.5).", float),
    Setting("GATE_MISSING_WEIGHT", 0.3, "Rule `evidence`: weight of the share of the question's term weight the candidates contain but the document lacks (with `EMBEDDER=e5` and this unset: 0.15).", float),
    Setting("GATE_MIN_SIMILARITY", 0.35, "Rule `ranked`: the cosine similarity a top document's chunk needs (calibrated for the USE embedder).", float),
    Setting("TERM_BRIDGE", "embedder", "Hybrid retrieval: `embedder` maps each question word that no candidate of either leg contains (another language's word, an irregular form) onto its most similar word of the first BRIDGE_CHUNKS vector candidates (the two words' cosine with the built-in USE embedder at least BRIDGE_MIN_SIMILARITY), searches full text again with those words added, and lets the fusion, the lexical rule and the found sources count them in place of the question's words (the gate's evidence: BRIDGE_EVIDENCE); `none` searches the question as asked (docs/retrieval.md#the-term-bridge).", _choice("embedder", "none")),
    Setting("BRIDGE_CHUNKS", 20, "Term bridge: the first vector candidates whose words a question word may be bridged to.", _positive),
    Setting("BRIDGE_MIN_SIMILARITY", 0.75, "Term bridge: the cosine of the two words' USE embeddings a bridge needs.", float),
    Setting("BRIDGE_EVIDENCE", 0.5, "Term bridge: the share of a bridged word's weight that the gate's evidence (GATE_RULE=evidence) credits when a document holds it, or charges when the document lacks it (1: like a word of the question; 0: not at all). Bridged words come from the first candidates by construction, so whole credit makes off-topic questions in another language look on-topic.", _fraction),
    Setting("BRIDGE_DICTIONARY_GATE", False, "Term bridge: let the dictionary's words also count in place of the question's words for the fusion, the gate and the found sources (as the embedder's words do), not only in the full-text search. On: many more German questions over English text get passages (xquad/de-en context recall 0.80 -> 0.91), and a quarter of off-topic German questions too (docs/retrieval.md#the-term-bridge).", _bool),
    Setting("BRIDGE_DICTIONARY_EVIDENCE", 1.0, "Term bridge, with BRIDGE_DICTIONARY_GATE: the share of a dictionary word's weight that the gate's evidence credits (as BRIDGE_EVIDENCE for the embedder's words).", _fraction),
    Setting("BRIDGE_VECTOR_SEARCH", True, "Term bridge: also embed the question with the bridged words in place of its own and search the vectors with it; the gate (GATE_RULE=evidence) takes each of the first documents' better cosine of the two (a question in another language than its documents has a lower cosine to them; docs/retrieval.md#the-term-bridge). The ranking keeps the question's own cosine.", _bool),
    Setting("RETRIEVAL_MODE", "hybrid", "Candidate retrieval: `vector` (cosine), `fulltext` (BM25 on LanceDB's full-text index) or `hybrid` (both, fused; best on the shared benchmarks)."),
    Setting("FULLTEXT_TITLES", True, "Full-text index: each chunk is searched with its document's title in front (a web page's title, else the file name without its ending) unless the chunk contains it; the text shown is unchanged. Applies to chunks written from then on: `flask rag rebuild --all` for the others (docs/retrieval.md#the-search-text).", _bool),
    Setting("FULLTEXT_COMPOUNDS", True, "Full-text index in German (FTS_LANGUAGE): each chunk is searched with the parts of its compound nouns added, split with the BRIDGE_DICTIONARY word list (\"Nationalhymne\" -> \"national hymne\"), and so is each question. Without the list nothing is split. Applies to chunks written from then on (docs/retrieval.md#the-search-text).", _bool),
    Setting("FUSION_METHOD", "convex", "Hybrid fusion: `convex` (weighted sum of min-max scaled scores) or `rrf` (weighted Reciprocal Rank Fusion)."),
    Setting("FUSION_LEXICAL_WEIGHT", 0.65, "Weight of the full-text leg in the fusion when the question's terms occur in the searched areas.", float),
    Setting("FUSION_COVERAGE_FLOOR", 0.2, "Share of question terms found by full text at or below which the fusion uses the vector leg alone.", float),
    Setting("FUSION_COVERAGE_FULL", 0.6, "Share at or above which the full-text leg gets its whole weight (linear in between); set it at or below the floor for a constant weight.", float),
    Setting("FUSION_RRF_K", 60.0, "The k of Reciprocal Rank Fusion (method `rrf` only).", float),
    Setting("FUSION_WEIGHT_FROM", "both", "What sets the full-text weight: `both` (the mean of `all` and `top`: the question's words must occur, and together in one of the best full-text documents), `top` (the share of the question's terms that the best of the first FUSION_TOP_DOCUMENTS full-text documents holds) or `all` (the share found anywhere among the full-text candidates, the rule before).", _choice("both", "top", "all")),
    Setting("FUSION_TOP_DOCUMENTS", 1, "Full-text documents looked at by FUSION_WEIGHT_FROM=top and both.", _positive),
    Setting("FUSION_DOCUMENT_SHARE", 0.7, "Share of the document-level fusion (a document's best vector chunk and best full-text chunk, fused, even when they are different chunks) in the score of each document's best chunk (its other chunks keep their own); 0 fuses per chunk only (the rule before).", _fraction),
    Setting("RERANKER", "none", "Second stage on the top candidates: `none`, `embedder` (RERANK_EMBEDDER re-scores them; e5 lifts the default USE setup at the cost of e5 on RERANK_TOP_N passages a question: seconds to minutes on 2 cores, see docs/evaluation.md#reranking-and-query-expansion) or `llm` (the LLM judges them; one extra LLM call a question).", _choice("none", "embedder", "llm")),
    Setting("RERANK_TOP_N", 20, "Candidates the reranker re-orders (from the top of the fused list); the rest keep their order.", _positive),
    Setting("RERANK_EMBEDDER", "e5", "Embedder of the `embedder` reranker: `e5`, `use`, `ollama`, `openai` (the latter two use their OLLAMA_/OPENAI_ settings).", _choice("e5", "use", "ollama", "openai", "fake")),
    Setting("RERANK_WEIGHT", 0.7, "Share of the reranking embedder's score against the fused order (0..1).", _fraction),
    Setting("QUERY_EXPANSION", "none", "`llm`: the LLM adds keywords, synonyms and their translation into FTS_LANGUAGE to the full-text query (one extra LLM call a question); `none`: off.", _choice("none", "llm")),
)

# Constants in code with a name: overrides (tests) may set them, the environment may not.
INTERNAL: tuple[Setting, ...] = (
    Setting("QUEUE_NAME", "irisrag", "RQ queue used for imports."),
    Setting("LANCEDB_READ_CONSISTENCY_SECONDS", 2.0, "How often readers (the web process) look for new LanceDB versions.", float),
    Setting("URL_TIMEOUT", 20.0, "Seconds to wait for a web page during URL import (each connect and read).", float),
    Setting("URL_TOTAL_TIMEOUT", 300.0, "Wall-clock limit in seconds on a whole URL fetch (redirects, headers and body), however slowly the server sends.", float),
    Setting("JOB_TIMEOUT", 3600, "Seconds an import job may run before RQ stops it.", int),
    Setting("OCR_PAGE_TIMEOUT", 120.0, "Seconds tesseract may spend on one page; a page past it is left out of the document (logged).", float),
    Setting("IMPORT_STALE_SECONDS", 600, "An import whose progress has not moved for this long is marked failed (its worker stopped).", int),
    Setting("LOGIN_RATE_WINDOW", 300, "Seconds of the login rate-limit window.", int),
    Setting("LANGUAGE", "", "Force the UI language (`de` or `en`); empty follows the browser.", str),
    Setting("EMBEDDING_BATCH_SIZE", 32, "Chunks embedded per call.", int),
    Setting("IMPORT_WRITE_ROWS", 512, "Chunks an import writes to LanceDB per commit. A document with more chunks is written in batches of this size, invisible until its last batch is in, then shown in one commit (its old chunks stay until then), so an import's memory does not grow with the document. Each batch is a LanceDB version and fragment until the next compaction.", _positive),
    Setting("CHUNK_OVERLAP", 150, "Characters shared by neighbouring chunks.", int),
    Setting("OLLAMA_TIMEOUT", 20.0, "Seconds to wait for an Ollama embedding call.", float),
    Setting("LLM_PROBE_SECONDS", 30.0, "`auto`: seconds the outcome of the Ollama probe (`GET /api/tags`) is reused; one probe runs at a time.", float),
    Setting("LLM_TIMEOUT", 120.0, "Seconds a language model call may take in all, streamed or not, whatever the server sends meanwhile (keep-alives do not count); past it the request is closed, so the server stops generating.", float),
    Setting("LLM_FIRST_TOKEN_TIMEOUT", 60.0, "Seconds a streamed answer may take until the model's first word (a busy or overloaded server); 0: only LLM_TIMEOUT.", float),
    Setting("LLM_MAX_TOKENS", 1024, "Most tokens the model may write for an answer (sent as `max_tokens` / Ollama `num_predict`); an answer that reaches it is marked as cut off. The relevance judge, the query expansion and `check-llm` use small fixed limits.", _positive),
    Setting("BRIDGE_DICTIONARY", "/usr/share/trans/de-en", "Term bridge: a German→English word list in the Ding format (Debian's package `trans-de-en`, installed by `make setup` where it can); a question word no candidate holds is looked up there, and the translation whose words the first BRIDGE_CHUNKS vector candidates hold is added to the full-text search (the embedder's bridge is kept for the fusion and the gate unless BRIDGE_DICTIONARY_GATE). Empty, or a missing file: the embedder alone (docs/retrieval.md#the-term-bridge)."),
    Setting("FOLLOWUP_REWRITE_SECONDS", 10.0, "Seconds the language model has to rewrite a follow-up question into a standalone search query; after that (or on an error) the previous question's key terms are added instead (docs/usage.md#follow-up-questions).", float),
    Setting("VECTOR_INDEX_MIN_ROWS", 50000, "Chunks a table needs before the vector index (below: exact search) is built; the import that crosses it builds it.", _count),
    Setting("VECTOR_INDEX_TYPE", "IVF_SQ", "Vector index: `IVF_SQ` (IVF + 8-bit scalar quantisation; recall@256 >= 0.98 with the refine step, see bench/index_bench.py) or `IVF_HNSW_SQ`.", _index_type),
    Setting("LANCEDB_CLEANUP_OLDER_THAN", 3600.0, "Age of old LanceDB versions that index upkeep removes: seconds, or `30m`, `1h`, `7d`; at least 60 s (readers may still use recent versions).", _duration),
    Setting("MAINTENANCE_INTERVAL", 300, "Seconds between index upkeep runs (full-text fold-in, vector index, optimize, cleanup) scheduled by the workers; `0` turns the periodic run off (`flask rag maintain` still works).", _count),
    Setting("LDAP_CA_FILE", "", "PEM file of the CA that signed the LDAP server's certificate (LDAPS/StartTLS); empty uses the system's CAs. The certificate is always verified."),
    Setting("LDAP_USER_FILTER", "(objectClass=person)", "Filter every user must match; combined with `(LDAP_USERNAME_ATTRIBUTE=<escaped name>)`."),
    Setting("LDAP_GROUP_FILTER", "(|(member={user_dn})(uniqueMember={user_dn})(memberUid={username}))", "Filter for the user's groups below LDAP_GROUP_BASE; `{user_dn}` and `{username}` are escaped."),
    Setting("LDAP_TIMEOUT", 5.0, "Seconds to wait for the LDAP server (connect and each operation).", float),
    Setting("OIDC_PROVIDER_NAME", "Single sign-on", "Name on the login button (`Log in with ...`)."),
    Setting("OIDC_REDIRECT_URI", "", "Callback URL registered at the provider; empty derives `https://<host>/sso/oidc/callback` from the request."),
    Setting("OIDC_LOGOUT", True, "Log out at the provider too (RP-initiated logout) when it offers an `end_session_endpoint`; register `https://<host>/login` as post-logout redirect URI.", _bool),
    Setting("OIDC_TIMEOUT", 10.0, "Seconds to wait for the provider (discovery, keys, token, userinfo).", float),
)

TEST_ONLY: tuple[Setting, ...] = (
    Setting("FAKE_EMBED_DELAY", 0.0, "Tests only: seconds the fake embedder sleeps per batch.", float),
)

# Retrieval profiles (IRISRAG_RETRIEVAL_PROFILE): the tuning calibrated per embedder with
# bench/evidence_replay.py (README: the gate per embedder). e5's cosines sit on another scale
# than USE's (related and unrelated passages alike score about 0.82), so USE's gate let every
# off-topic question through; e5 gets no allowance or bonus for translated questions (they were
# measured for USE only). Any other embedder (Ollama, OpenAI) gets USE's values until measured.
_USE: dict[str, Any] = {s.key: s.default for s in PROFILE_FIELDS}
PROFILES: dict[str, dict[str, Any]] = {
    "use": _USE,
    "e5": {**_USE, "GATE_MIN_EVIDENCE": 0.92, "GATE_COVERAGE_WEIGHT": 0.5, "GATE_MISSING_WEIGHT": 0.15,
           "GATE_TRANSLATED_ALLOWANCE": 0.0, "GATE_AGREEMENT_BONUS": 0.0},
    "generic": dict(_USE),
}
PROFILE_OF_EMBEDDER = {"use": "use", "e5": "e5"}   # every other embedder: "generic"

OPERATOR_DEFAULTS: dict[str, Any] = {s.key: s.default for s in SETTINGS}
INTERNAL_DEFAULTS: dict[str, Any] = {s.key: s.default for s in (*INTERNAL, *TEST_ONLY)}
TEST_OVERRIDES = "IRISRAG_TEST_OVERRIDES"   # JSON object of overrides, for the processes tests start
# IRISRAG_* variables that are no settings: read by `make run`, the tests and the benchmarks.
TOOLING = ("IRISRAG_ADMIN_PASSWORD", "IRISRAG_SCREENSHOTS", "IRISRAG_SHOTS", "IRISRAG_SHARED_EVAL")
TOOLING_PREFIXES = ("IRISRAG_TEST_", "IRISRAG_BENCH_")
ENV_FILE = Path(__file__).resolve().parent.parent / ".env"


def profile_name(values: Mapping[str, Any]) -> str:
    """The retrieval profile in force: RETRIEVAL_PROFILE, else the one calibrated for EMBEDDER."""
    chosen = str(values.get("RETRIEVAL_PROFILE") or "").strip().lower()
    return chosen or PROFILE_OF_EMBEDDER.get(str(values.get("EMBEDDER", "")).strip().lower(), "generic")


def defaults(overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Every value the app runs without environment: the table, the profile in force, the constants."""
    chosen = {**OPERATOR_DEFAULTS, **(overrides or {})}
    return {**INTERNAL_DEFAULTS, **PROFILES[profile_name(chosen)], **chosen}


DEFAULTS: dict[str, Any] = defaults()   # every value the app runs with an empty environment


def load(environ: Mapping[str, str] | None = None, overrides: Mapping[str, Any] | None = None,
         env_file: Path | None = None) -> dict[str, Any]:
    """Return the settings: defaults, then IRISRAG_* variables, then overrides (ConfigError if refused).

    Reading the process environment (``environ`` None) also checks the names in ``.env``.
    """
    if environ is None:
        environ, env_file = os.environ, ENV_FILE if env_file is None else env_file
    refuse_unknown([*environ, *_file_names(env_file)])
    given = {**_test_overrides(environ), **(overrides or {})}
    values = defaults({**from_environment(environ), **given})
    check(values)
    explicit = {s.key for s in SETTINGS if f"IRISRAG_{s.key}" in environ} | set(given)
    values["EXPLICIT_SETTINGS"] = frozenset(explicit)  # set by the operator (LLM=auto reads OPENAI_BASE_URL's)
    return values


_ACCEPTS = {int: "a whole number", float: "a number"}   # the plain parsers' own messages name no rule


def from_environment(environ: Mapping[str, str]) -> dict[str, Any]:
    """The operator settings set in the environment, parsed (ConfigError names a refused one)."""
    values = {}
    for setting in SETTINGS:
        raw = environ.get(f"IRISRAG_{setting.key}")
        if raw is not None:
            try:
                values[setting.key] = setting.parse(raw)
            except (ValueError, TypeError, KeyError) as exc:
                accepts = _ACCEPTS.get(setting.parse, exc)
                raise ConfigError(f"IRISRAG_{setting.key}={raw!r} is not valid: {accepts}") from exc
    return values


def refuse_unknown(names: Iterable[str]) -> None:
    """Stop at the first IRISRAG_* name that is no setting, naming what to write instead."""
    for name in sorted(set(names)):
        if name.startswith("IRISRAG_") and not _known(name):
            raise ConfigError(unknown_message(name))


def _known(name: str) -> bool:
    return name[len("IRISRAG_"):] in OPERATOR_DEFAULTS or name in TOOLING or name.startswith(TOOLING_PREFIXES)


RENAMED = {"OLLAMA_EMBED_DIM": "EMBEDDING_DIM", "OPENAI_EMBED_DIM": "EMBEDDING_DIM"}


def unknown_message(name: str) -> str:
    """Why a name is refused: a former setting says where its value went; a typo gets the closest name."""
    key = name[len("IRISRAG_"):]
    if key in RENAMED:
        return f"{name} is not a setting any more: set IRISRAG_{RENAMED[key]} instead"
    if key in _USE:
        return (f"{name} is not a setting any more: it is part of the retrieval profile "
                f"(IRISRAG_RETRIEVAL_PROFILE: {', '.join(PROFILES)}); remove it")
    if key in INTERNAL_DEFAULTS:
        return f"{name} is not a setting any more: its value is a constant in code ({INTERNAL_DEFAULTS[key]!r}); remove it"
    close = get_close_matches(key, OPERATOR_DEFAULTS, n=1, cutoff=0.6)
    hint = f"; did you mean IRISRAG_{close[0]}?" if close else "; see docs/configuration.md for the settings"
    return f"{name} is not an IrisRAG setting{hint}"


def _file_names(path: Path | None) -> list[str]:
    """The variable names an environment file sets (none when there is no file)."""
    if path is None or not path.is_file():
        return []
    from dotenv import dotenv_values

    return list(dotenv_values(path))


def _test_overrides(environ: Mapping[str, str]) -> dict[str, Any]:
    raw = environ.get(TEST_OVERRIDES)
    if not raw:
        return {}
    data = json.loads(raw)
    if not isinstance(data, dict):
        raise ConfigError(f"{TEST_OVERRIDES} must be a JSON object")
    return data


def check(values: Mapping[str, Any]) -> None:
    """Refuse values that would only fail later (overrides skip the parsers): stop at start instead."""
    from irisrag.ingest.netguard import Allowlist

    try:
        Allowlist.parse(values.get("URL_ALLOWLIST") or [])
    except ValueError as exc:
        raise ConfigError(f"IRISRAG_URL_ALLOWLIST is not valid: {exc}") from exc
    if int(values["CHUNK_SIZE"]) <= int(values["CHUNK_OVERLAP"]):
        raise ConfigError(f"IRISRAG_CHUNK_SIZE={values['CHUNK_SIZE']!r} is not valid: "
                          f"more than the {values['CHUNK_OVERLAP']} characters neighbouring chunks share")
    if int(values["LOGIN_RATE_LIMIT"]) < 1:
        raise ConfigError(f"IRISRAG_LOGIN_RATE_LIMIT={values['LOGIN_RATE_LIMIT']!r} is not valid: "
                          "at least 1 (0 would lock every account out)")


def markdown_tables() -> str:
    """Render the operator settings as one table per topic (docs/configuration.md, `make readme`)."""
    sections = []
    for group in dict.fromkeys(s.group for s in SETTINGS):
        rows = [f"### {group}", "", "| variable | default | meaning |", "|---|---|---|"]
        rows += [_row(s) for s in SETTINGS if s.group == group]
        sections.append("\n".join(rows))
    return "\n\n".join(sections)


def _row(setting: Setting) -> str:
    default = "" if setting.default in (None, "", [], {}) else f"`{setting.default}`"
    return f"| `IRISRAG_{setting.key}` | {default} | {setting.help} |"
