"""The OpenAPI 3 description of the JSON API, served at /api/v1/openapi.json.

Paths are relative to the server URL (``/api/v1``). A test checks that every route the
``api`` blueprint registers is described here with its methods.
"""
from __future__ import annotations

import copy
from typing import Any

VERSION = "1.0.0"


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


ERROR_TEXTS = {
    400: "Invalid JSON (`invalid_json`) or fields (`invalid`, with `field`).",
    401: "Missing, unknown or revoked key, or a deactivated account (`unauthorized`).",
    403: "An area the key does not reach, or an import or admin listing with a non-admin key (`forbidden`).",
    404: "Unknown document, or one outside the key's areas (`not_found`).",
    409: "The document is being imported right now (`conflict`).",
    413: "The upload is larger than the limit (`too_large`).",
    502: "The embedding service failed (`embedding_failed`).",
    503: "The job queue (Redis) is not reachable (`queue_unavailable`).",
}


def _errors(*statuses: int) -> dict[str, Any]:
    return {str(s): {"$ref": f"#/components/responses/E{s}"} for s in statuses}


def _error_responses() -> dict[str, Any]:
    return {f"E{status}": _json(_ref("Error"), text) for status, text in ERROR_TEXTS.items()}


_AREA_REFS = {
    "type": "array", "maxItems": 1000,
    "items": {"oneOf": [{"type": "integer"}, {"type": "string"}]},
    "description": "Area ids or names; omitted: every area the key reaches. "
                   "Naming any other area is refused with 403.",
}
_SEARCH_QUERY = {"type": "string", "description": "What retrieval searched for: the question, or a follow-up "
                                                   "rewritten or completed from previous."}

SCHEMAS: dict[str, Any] = {
    "Error": {
        "type": "object", "required": ["error"],
        "properties": {"error": {
            "type": "object", "required": ["code", "message"],
            "properties": {
                "code": {"type": "string", "description": "Stable: unauthorized, forbidden, invalid, invalid_json, "
                                                          "not_found, method_not_allowed, too_large, conflict, "
                                                          "queue_unavailable, embedding_failed, internal, ..."},
                "message": {"type": "string"},
                "field": {"type": "string", "description": "The input the error is about, if any."},
            },
        }},
    },
    "Area": {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"},
                                              "description": {"type": "string"}}},
    "AreaRef": {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}}},
    "Question": {
        "type": "object", "required": ["question"],
        "properties": {"question": {"type": "string", "maxLength": 4000}, "areas": _AREA_REFS,
                       "previous": {"type": "array", "maxItems": 20, "items": _ref("PreviousTurn"),
                                    "description": "The conversation so far, oldest first: a follow-up such as "
                                                   "\"and in 2020?\" is searched with what it refers to (rewritten "
                                                   "by the model, or completed with the previous question's key "
                                                   "terms without one), and the model sees these turns."}},
    },
    "PreviousTurn": {"type": "object", "required": ["question"], "properties": {
        "question": {"type": "string", "minLength": 1, "maxLength": 4000},
        "answer": {"type": "string", "maxLength": 20000, "default": ""}}},
    "AnswerRequest": {
        "allOf": [_ref("Question"), {"type": "object", "properties": {
            "use_llm": {"type": "boolean", "default": True,
                        "description": "false: no model call, an extractive answer from the best passages."},
            "stream": {"type": "boolean", "default": False,
                       "description": "true: answer as server-sent events (text/event-stream), see the 200 "
                                      "response of POST /answer."}}}],
    },
    "Timings": {"type": "object", "additionalProperties": {"type": "number"},
                "description": "Seconds per stage (embed, search, fulltext, fuse, lexical, select, sources, "
                               "context, llm, documents, total)."},
    "Chunk": {"type": "object", "properties": {
        "position": {"type": "integer", "description": "1-based number in the context, as cited [n]."},
        "document_id": {"type": "integer"}, "area_id": {"type": "integer"}, "chunk_index": {"type": "integer"},
        "page": {"type": "integer", "nullable": True}, "score": {"type": "number", "description": "cosine"},
        "rank": {"type": "integer"}, "lexical_score": {"type": "number"}, "text": {"type": "string"}}},
    "DocumentRef": {"type": "object", "properties": {
        "id": {"type": "integer"}, "name": {"type": "string"}, "area": _ref("AreaRef"),
        "source_url": {"type": "string", "nullable": True}, "original_path": {"type": "string", "nullable": True}}},
    "Retrieval": {"type": "object", "properties": {
        "question": {"type": "string"}, "areas": {"type": "array", "items": {"type": "integer"}},
        "search_query": _SEARCH_QUERY, "chunks": {"type": "array", "items": _ref("Chunk")},
        "sources": {"type": "array", "items": {"type": "object", "properties": {
            "document_id": {"type": "integer"}, "score": {"type": "number"}}}},
        "documents": {"type": "array", "items": _ref("DocumentRef")}, "timings": _ref("Timings")}},
    "Source": {"type": "object", "properties": {
        "document_id": {"type": "integer"}, "name": {"type": "string"}, "area": _ref("AreaRef"),
        "source_url": {"type": "string", "nullable": True}, "original_path": {"type": "string", "nullable": True},
        "score": {"type": "number"},
        "passages": {"type": "array", "items": {"type": "object", "properties": {
            "chunk_index": {"type": "integer"}, "page": {"type": "integer", "nullable": True},
            "score": {"type": "number"}, "text": {"type": "string"}}}}}},
    "Answer": {"type": "object", "properties": {
        "question": {"type": "string"}, "areas": {"type": "array", "items": {"type": "integer"}},
        "search_query": _SEARCH_QUERY,
        "status": {"type": "string", "enum": ["answered", "extractive", "no_context", "incomplete", "searching"],
                   "description": "incomplete: a streamed answer the model broke off; searching: the sources "
                                  "event of a stream."},
        "answer": {"type": "string", "description": "Markdown; cites context passages as [n]."},
        "llm": {"type": "string"}, "extractive": {"type": "boolean"},
        "notice": {"type": "string", "nullable": True}, "error": {"type": "string", "nullable": True},
        "error_detail": {"type": "string", "nullable": True, "description": "Admin keys only."},
        "citations": {"type": "array", "items": {"type": "object"},
                      "description": "Checked citations, numbered as the context (may be empty)."},
        "context": {"type": "array", "items": _ref("Chunk")},
        "sources": {"type": "array", "items": _ref("Source"),
                    "description": "The documents the answer cites, in the order of their first citation "
                                   "(every found source when the answer cites none)."},
        "other_sources": {"type": "array", "items": _ref("Source"),
                          "description": "The found sources the answer does not cite (other matches)."},
        "nearest": {"type": "array", "items": _ref("Source"),
                    "description": "status no_context only: the ranking's first documents (NEAREST_DOCUMENTS), "
                                   "which may not answer the question; score: cosine and chunk_index: the "
                                   "document's best-ranked chunk; no passages."},
        "timings": _ref("Timings")}},
    "SyncSource": {"type": "object", "properties": {
        "id": {"type": "integer"}, "area": _ref("AreaRef"), "kind": {"type": "string", "enum": ["url", "site", "folder"]},
        "start_url": {"type": "string", "nullable": True}, "url_prefix": {"type": "string", "nullable": True},
        "folder": {"type": "string", "nullable": True},
        "interval": {"type": "string", "enum": ["off", "hourly", "daily", "weekly"]},
        "last_run_at": {"type": "string", "nullable": True, "format": "date-time"},
        "next_due_at": {"type": "string", "nullable": True, "format": "date-time"},
        "job": {"type": "string", "description": "POST /sync only: the queued job's id"}}},
    "SyncSourceWithRuns": {"allOf": [_ref("SyncSource"), {"type": "object", "properties": {"runs": {
        "type": "array", "items": {"type": "object", "properties": {
            "id": {"type": "integer"}, "state": {"type": "string", "enum": ["running", "done", "failed", "interrupted"]},
            "started_at": {"type": "string"}, "finished_at": {"type": "string", "nullable": True},
            "counts": {"type": "object", "properties": {k: {"type": "integer"} for k in (
                "new", "changed", "unchanged", "removed", "failed", "deleted")}},
            "requests": {"type": "integer"}, "duration_ms": {"type": "integer"},
            "note": {"type": "string", "nullable": True}}}}}}]},
    "MissedQuestion": {"type": "object", "properties": {
        "question_id": {"type": "integer"}, "question": {"type": "string"}, "search_query": _SEARCH_QUERY,
        "asked_at": {"type": "string", "format": "date-time"},
        "area_ids": {"type": "array", "items": {"type": "integer"}},
        "reasons": {"type": "array", "items": {"type": "string", "enum": ["no_information", "thumbs_down"]}},
        "comment": {"type": "string", "description": "The asker's comment with a thumbs down."},
        "user": {"type": "string", "description": "Who asked; present only when MISSING_ANSWERS_SHOW_USERS is on."}}},
    "MissingAnswers": {"type": "object", "properties": {
        "days": {"type": "integer"}, "questions": {"type": "integer"},
        "truncated": {"type": "boolean", "description": "true: only the newest questions were grouped."},
        "groups": {"type": "array", "description": "Similar questions (the embedder's vectors), largest group first.",
                   "items": {"type": "object", "properties": {
                       "count": {"type": "integer"}, "question": {"type": "string", "description": "representative"},
                       "last_asked": {"type": "string", "format": "date-time"},
                       "areas": {"type": "array", "items": _ref("AreaRef")},
                       "no_information": {"type": "integer"}, "thumbs_down": {"type": "integer"},
                       "members": {"type": "array", "items": _ref("MissedQuestion")}}}}}},
    "Document": {"type": "object", "properties": {
        "id": {"type": "integer"}, "name": {"type": "string"}, "area": _ref("AreaRef"), "kind": {"type": "string"},
        "status": {"type": "string", "enum": ["queued", "fetching", "extracting", "chunking", "embedding", "done",
                                              "unchanged", "failed"]},
        "running": {"type": "boolean"},
        "progress": {"type": "object", "properties": {"done": {"type": "integer"}, "total": {"type": "integer"}}},
        "chunk_count": {"type": "integer"}, "source_url": {"type": "string", "nullable": True},
        "original_path": {"type": "string", "nullable": True}, "error": {"type": "string", "nullable": True},
        "error_detail": {"type": "string", "nullable": True, "description": "Admin keys only."},
        "created_at": {"type": "string", "format": "date-time"}, "updated_at": {"type": "string", "format": "date-time"},
        "imported_at": {"type": "string", "format": "date-time", "nullable": True}}},
    "DocumentList": {"type": "object", "properties": {
        "documents": {"type": "array", "items": _ref("Document")}, "total": {"type": "integer"},
        "limit": {"type": "integer"}, "offset": {"type": "integer"}}},
    "UrlImport": {"type": "object", "required": ["area", "url"], "properties": {
        "area": {"oneOf": [{"type": "integer"}, {"type": "string"}], "description": "Area id or name."},
        "url": {"type": "string", "format": "uri", "maxLength": 2048}}},
    "FileImport": {"type": "object", "required": ["area", "file"], "properties": {
        "area": {"type": "string", "description": "Area id or name."},
        "file": {"type": "string", "format": "binary"}}},
}

STREAM_TEXT = (
    "With \"stream\": true the answer comes as server-sent events, each `data` one JSON object: "
    "`sources` (an Answer with status searching: sources, context, timings so far), `token` ({\"text\": the next "
    "piece of Markdown}, repeated), then `done` (the Answer: citations checked, timings including sources, "
    "first_token, llm_first_token and total) or `error` (the Answer with status incomplete and the partial "
    "answer, plus code, message, partial and incomplete: true). Input, key and area errors come before the "
    "stream, as JSON errors. Closing the connection stops the model."
)

PATHS: dict[str, Any] = {
    "/openapi.json": {"get": {
        "summary": "This description", "operationId": "describe", "security": [],
        "responses": {"200": {"description": "OpenAPI 3 document", "content": {"application/json": {}}}}}},
    "/areas": {"get": {
        "summary": "Areas the key reaches", "operationId": "listAreas",
        "responses": {"200": _json({"type": "object", "properties": {
            "areas": {"type": "array", "items": _ref("Area")}}}, "The areas"), **_errors(401)}}},
    "/retrieve": {"post": {
        "summary": "Retrieval only: the numbered context chunks with scores, documents, timings",
        "operationId": "retrieve",
        "requestBody": {"required": True, "content": {"application/json": {"schema": _ref("Question")}}},
        "responses": {"200": _json(_ref("Retrieval"), "The context"), **_errors(400, 401, 403, 502)}}},
    "/answer": {"post": {
        "summary": "An answer with citations, sources and timings", "operationId": "answer",
        "requestBody": {"required": True, "content": {"application/json": {"schema": _ref("AnswerRequest")}}},
        "description": STREAM_TEXT,
        "responses": {"200": {"description": "The answer (JSON), or its events (with stream: true)", "content": {
            "application/json": {"schema": _ref("Answer")},
            "text/event-stream": {"schema": {"type": "string", "description": STREAM_TEXT}}}},
            **_errors(400, 401, 403, 502)}}},
    "/documents": {
        "get": {
            "summary": "Documents in the key's areas, newest first", "operationId": "listDocuments",
            "parameters": [
                {"name": "area", "in": "query", "schema": {"type": "string"}, "description": "Area id or name."},
                {"name": "status", "in": "query", "schema": {"type": "string"}},
                {"name": "limit", "in": "query", "schema": {"type": "integer", "default": 100, "maximum": 1000}},
                {"name": "offset", "in": "query", "schema": {"type": "integer", "default": 0}}],
            "responses": {"200": _json(_ref("DocumentList"), "One page of documents"), **_errors(400, 401, 403)}},
        "post": {
            "summary": "Queue an import (URL as JSON, or a file as multipart); admin accounts' keys only",
            "description": "Needs the key of an admin account; the area must be one the key reaches. "
                           "Answers 202 with the document; poll GET /documents/{document_id} for progress.",
            "operationId": "importDocument",
            "requestBody": {"required": True, "content": {
                "application/json": {"schema": _ref("UrlImport")},
                "multipart/form-data": {"schema": _ref("FileImport")}}},
            "responses": {"202": {**_json(_ref("Document"), "Queued"), "headers": {
                "Location": {"schema": {"type": "string"}, "description": "The document's status URL."}}},
                **_errors(400, 401, 403, 409, 413, 503)}}},
    "/documents/{document_id}": {"get": {
        "summary": "A document's status and progress", "operationId": "getDocument",
        "parameters": [{"name": "document_id", "in": "path", "required": True, "schema": {"type": "integer"}}],
        "responses": {"200": _json(_ref("Document"), "The document"), **_errors(401, 404)}}},
    "/documents/{document_id}/cancel": {"post": {
        "summary": "Cancel a queued or running import; admin accounts' keys only",
        "description": "The job stops within seconds, the document's old chunks stay, its status becomes "
                       "`cancelled`. 409 when the document is not being imported.",
        "operationId": "cancelImport",
        "parameters": [{"name": "document_id", "in": "path", "required": True, "schema": {"type": "integer"}}],
        "responses": {"200": _json(_ref("Document"), "Cancelled"), **_errors(401, 403, 404, 409)}}},


    "/sources": {"get": {
        "summary": "The sources of the key's areas; admin accounts' keys only", "operationId": "listSources",
        "responses": {"200": _json({"type": "object", "properties": {"sources": {"type": "array",
                                                                                  "items": _ref("SyncSource")}}},
                                   "The sources"), **_errors(401, 403)}}},
    "/sources/{source_id}": {"get": {
        "summary": "A source with its latest sync runs; admin accounts' keys only", "operationId": "getSource",
        "parameters": [{"name": "source_id", "in": "path", "required": True, "schema": {"type": "integer"}}],
        "responses": {"200": _json(_ref("SyncSourceWithRuns"), "The source"), **_errors(401, 403, 404)}}},
    "/sources/{source_id}/sync": {"post": {
        "summary": "Queue a sync of a source; admin accounts' keys only",
        "description": "Answers 202; poll GET /sources/{source_id} for the run. 409 while a sync of it runs.",
        "operationId": "syncSource",
        "parameters": [{"name": "source_id", "in": "path", "required": True, "schema": {"type": "integer"}}],
        "responses": {"202": _json(_ref("SyncSource"), "Queued"), **_errors(401, 403, 404, 409, 503)}}},
    "/missing-answers": {"get": {
        "summary": "Questions of the last 30 days that got no information or a thumbs down, grouped; admin keys only",
        "description": "Every area, whatever the key's areas: what the library lacks. Users' names only when "
                       "the setting MISSING_ANSWERS_SHOW_USERS is on.",
        "operationId": "listMissingAnswers",
        "responses": {"200": _json(_ref("MissingAnswers"), "Grouped questions"), **_errors(401, 403, 502)}}},


    "/documents/{document_id}/content": {"get": {
        "summary": "A document's staged file (PDF inline, other kinds as an attachment)",
        "operationId": "getDocumentContent",
        "parameters": [{"name": "document_id", "in": "path", "required": True, "schema": {"type": "integer"}}],
        "responses": {"200": {"description": "The file; Content-Disposition carries a safe file name",
                              "content": {"application/pdf": {}, "application/octet-stream": {}}},
                      **_errors(401, 404)}}},
}


def spec(server: str = "/api/v1") -> dict[str, Any]:
    """Return the OpenAPI document with the given server URL."""
    return {
        "openapi": "3.0.3",
        "info": {"title": "IrisRAG API", "version": VERSION,
                 "description": "Grounded answers and retrieval over permissioned documents. Authenticate with "
                                "an API key in the X-API-Key header; a key reaches at most its user's areas."},
        "servers": [{"url": server}],
        "security": [{"ApiKey": []}],
        "paths": copy.deepcopy(PATHS),
        "components": {
            "securitySchemes": {"ApiKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"}},
            "schemas": copy.deepcopy(SCHEMAS),
            "responses": _error_responses(),
        },
    }
