"""The OpenAPI document teaches (docs/api.md): it is generated as `manage.py spectacular`
generates it, and fails here when an operation has no summary or description, when a write
has no request or response example, when an example does not fit its own schema, when a
closed set is a regex instead of an enum, or when the code sends a webhook the document
does not describe."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from drf_spectacular.validation import validate_schema
from jsonschema import Draft202012Validator
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from games import engine
from gin_platform.events.catalogue import EVENT_TYPES
from gin_platform.http.pagination import EXAMPLE_POSITION, CreatedCursorPagination
from gin_platform.http.problems import PROBLEM_CONTENT_TYPE
from gin_platform.http.throttling import RATE_LIMIT_HEADERS

ROOT = Path(__file__).resolve().parents[2]
APPS = (
    "gin_platform",
    "games",
    "wallet",
    "settlement",
    "integrity",
    "protection",
    "tournaments",
    "ratings",
    "matchmaking",
    "leaderboards",
)
HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
WRITES = ("post", "put", "patch", "delete")
# A regex that only lists values, as "^(take_upcard|pass|...)$": a closed set not said as an enum.
VALUE_LIST_PATTERN = re.compile(r"^\^\(([\w-]+\|)+[\w-]+\)\$$")


def operations(document: dict, *, webhooks: bool = False):
    """(label, method, operation) of every path operation, and of every webhook if asked."""
    sections = [("paths", document["paths"])]
    if webhooks:
        sections.append(("webhooks", document.get("webhooks", {})))
    for _, items in sections:
        for path, item in items.items():
            for method, operation in item.items():
                if method in HTTP_METHODS:
                    yield f"{method.upper()} {path}", method, operation


def objects(node, where: str = "#"):
    """(JSON pointer, object) of every object in ``node``, itself first, depth first."""
    if isinstance(node, dict):
        yield where, node
        for key, value in node.items():
            yield from objects(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from objects(value, f"{where}/{index}")


def examples_of(content: dict) -> list[dict]:
    return [example for media in content.values() for example in media.get("examples", {}).values()]


def test_the_document_is_openapi_31_and_valid(document):
    assert document["openapi"] == "3.1.0"
    validate_schema(document)  # what `spectacular --validate` (make test) checks


def test_every_operation_and_webhook_has_a_summary_and_a_description(document):
    lacking = []
    for label, _, operation in operations(document, webhooks=True):
        summary = operation.get("summary", "")
        if not summary.strip() or not operation.get("description", "").strip():
            lacking.append(f"{label}: summary or description missing")
        elif "\n" in summary or len(summary) > 80 or summary.endswith("."):
            lacking.append(f"{label}: the summary is one short line, no full stop: {summary!r}")
    assert not lacking, "\n".join(lacking)


def test_every_write_has_a_request_and_a_response_example(document):
    lacking = []
    for label, method, operation in operations(document):
        if method not in WRITES:
            continue
        body = operation.get("requestBody")
        if body is not None and not examples_of(body["content"]):
            lacking.append(f"{label}: no request example")
        successes = [
            response
            for status, response in operation["responses"].items()
            if status.startswith("2") and response.get("content")
        ]
        # A write whose every success is empty (204) has nothing to show.
        if successes and not any(examples_of(r["content"]) for r in successes):
            lacking.append(f"{label}: no response example")
    for label, _, operation in operations({"paths": document["webhooks"]}):
        if not examples_of(operation["requestBody"]["content"]):
            lacking.append(f"webhook {label}: no example payload")
    assert not lacking, "\n".join(lacking)


def _contents(document: dict):
    """(where, media type, media object) of every request and response body."""
    for label, _, operation in operations(document, webhooks=True):
        for media_type, media in operation.get("requestBody", {}).get("content", {}).items():
            yield f"{label} request", media_type, media
        for status, response in operation.get("responses", {}).items():
            for media_type, media in response.get("content", {}).items():
                yield f"{label} {status}", media_type, media


def test_every_example_fits_its_schema(document):
    """Examples are realistic: each validates against the schema it illustrates (amounts as
    decimal strings, enums, required fields), so none goes stale unnoticed."""
    wrong = []
    count = 0
    for where, _, media in _contents(document):
        schema = {"components": document["components"], **media["schema"]}
        validator = Draft202012Validator(schema)
        for name, example in media.get("examples", {}).items():
            count += 1
            errors = sorted(validator.iter_errors(example["value"]), key=str)
            wrong.extend(f"{where} example {name}: {error.message}" for error in errors[:3])
    assert count > 60  # the writes' examples and the refusals' are all checked
    assert not wrong, "\n".join(wrong)


def test_refusals_are_documented_as_problems(document):
    """Error responses are problem+json only, their examples included
    (gin_platform.http.openapi)."""
    wrong = []
    problem_examples = 0
    for label, _, operation in operations(document):
        for status, response in operation["responses"].items():
            if not status.startswith("4"):
                continue
            if set(response.get("content", {})) - {PROBLEM_CONTENT_TYPE}:
                wrong.append(f"{label} {status}: {sorted(response['content'])}")
            for example in examples_of(response.get("content", {})):
                problem_examples += 1
                assert example["value"]["status"] == int(status), (label, status)
                assert example["value"]["type"].startswith("/problems/")
    assert not wrong, "\n".join(wrong)
    assert problem_examples >= 10


def test_closed_sets_are_enums_not_regexes(document):
    patterns = [
        f"{where}: {pattern}"
        for where, node in objects(document)
        if isinstance(pattern := node.get("pattern"), str) and VALUE_LIST_PATTERN.match(pattern)
    ]
    assert not patterns, "\n".join(patterns)
    schemas = document["components"]["schemas"]
    assert schemas["ActionKindEnum"]["enum"] == list(engine.ACTION_KINDS)
    action = schemas["ActionInputRequest"]["properties"]["kind"]
    assert action == {"$ref": "#/components/schemas/ActionKindEnum"}
    assert schemas["VariantEnum"]["enum"] == ["ftk", "match", "money"]
    event_kind = schemas["EventOutput"]["properties"]["kind"]["allOf"][0]
    assert event_kind == {"$ref": "#/components/schemas/MatchEventKindEnum"}


def test_null_is_said_the_openapi_31_way(document):
    """No OpenAPI 3.0 ``nullable`` is left (3.1 ignores it, so null would be refused), and a
    nullable field is ``anyOf`` (with ``oneOf`` a JSON field's null would match twice)."""
    leftovers = [
        where
        for where, node in objects(document)
        if "nullable" in node or {"type": "null"} in node.get("oneOf", ())
    ]
    assert not leftovers, "\n".join(leftovers)
    schemas = {"components": document["components"]}
    page = {**schemas, "$ref": "#/components/schemas/PaginatedPlayerOutputList"}
    Draft202012Validator(page).validate({"next": None, "previous": None, "results": []})
    event = {**schemas, "$ref": "#/components/schemas/EventOutput"}
    Draft202012Validator(event).validate(
        {
            "seq": 4,
            "hand": 1,
            "state_seq": 1,
            "kind": "match_finished",
            "seat": 1,
            "created_at": "2026-11-29T20:16:08.055486Z",
            "money_play": None,
        }
    )


def test_throttled_operations_document_the_rate_limit_headers(document):
    paths = document["paths"]
    responses = paths["/api/v1/players"]["post"]["responses"]
    for status, response in responses.items():
        if status != "401":  # refused credentials never reach the throttle
            assert set(RATE_LIMIT_HEADERS) <= set(response.get("headers", {})), status
    assert not set(RATE_LIMIT_HEADERS) & set(responses["401"]["headers"])
    assert "headers" not in paths["/api/v1/health"]["get"]["responses"]["200"]


# Functions that pass their caller's event type on to webhook_enqueue (a network game's events
# go to each participating operator: games.services.network.match_event_enqueue; integrity's
# to each operator concerned: integrity.services.events.event_send): the calls
# of the relay are read instead of the relay's own.
# event_send: integrity's, to each operator; entry_event and tournament_event: tournaments'.
RELAYS = (
    "match_event_enqueue",
    "event_send",
    "entry_event",
    "entries_tell",
    "tournament_event",
    "webhook_enqueue_many",
)
# webhook_enqueue's own halves: a caller that writes the event row itself (settlement) builds
# it with webhook_event_build, whose calls are read too; the module's own call is a relay.
SENDERS = ("webhook_enqueue", "webhook_enqueue_after_rollback", "webhook_event_build", *RELAYS)


def _webhooks_sent() -> tuple[set[str], list[str]]:
    """Every event type passed to webhook_enqueue (or a relay of it) in the apps' code, and
    the calls whose event type is not written out (those cannot be checked against the
    document)."""
    sent: set[str] = set()
    unreadable: list[str] = []
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            tree = ast.parse(path.read_text(), filename=str(path))
            relayed = {
                line
                for node in ast.walk(tree)
                if isinstance(node, ast.FunctionDef) and node.name in (*RELAYS, "_event_record")
                for line in range(node.lineno, node.end_lineno + 1)
            }
            for node in ast.walk(tree):
                if not isinstance(node, ast.Call) or node.lineno in relayed:
                    continue
                name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
                if name not in SENDERS:
                    continue
                event = next((k.value for k in node.keywords if k.arg == "event_type"), None)
                if isinstance(event, ast.Constant) and isinstance(event.value, str):
                    sent.add(event.value)
                else:
                    unreadable.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return sent, unreadable


def test_every_webhook_the_code_sends_is_in_the_document(document):
    sent, unreadable = _webhooks_sent()

    assert not unreadable, f"write the event type out (a string literal): {unreadable}"
    assert sent >= {"game.finished", "game.settled"}  # the scan finds the calls
    documented = set(document.get("webhooks", {}))
    assert documented == set(EVENT_TYPES), "the catalogue and the document's webhooks differ"
    assert sent - documented == set(), "sent but not in SPECTACULAR_SETTINGS['WEBHOOKS']"
    assert documented - sent == set(), "documented but never sent"
    for event in documented:
        operation = document["webhooks"][event]["post"]
        schema = operation["requestBody"]["content"]["application/json"]["schema"]
        envelope = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
        assert envelope["properties"]["type"]["const"] == event
        assert {"id", "type", "created_at", "data"} <= set(envelope["required"])
        headers = {p["name"] for p in operation["parameters"] if p["in"] == "header"}
        assert headers == {
            "X-Gin-Event",
            "X-Gin-Delivery",
            "X-Gin-Signature",
            "webhook-id",
            "webhook-timestamp",
            "webhook-signature",
        }
        assert operation.get("summary") and operation.get("description"), event
        media = operation["requestBody"]["content"]["application/json"]
        assert media.get("examples"), f"{event}: no example"
        for example in media["examples"].values():
            Draft202012Validator({**document, "$ref": schema["$ref"]}).validate(example["value"])


def test_every_operation_and_webhook_says_its_security_and_has_a_unique_operation_id(document):
    """Public operations say ``security: []`` (absent reads as "forgot to say"), webhooks too
    (the receiver checks our signature headers); each has an operationId for code generators,
    none shared; and the document names its server (relative: the host serving it)."""
    assert [server["url"] for server in document["servers"]] == ["/"]
    unsaid, ids = [], []
    for label, _, operation in operations(document, webhooks=True):
        if "security" not in operation:
            unsaid.append(label)
        ids.append(operation.get("operationId"))
    assert unsaid == []
    assert None not in ids and len(ids) == len(set(ids))
    public = {label for label, _, operation in operations(document) if operation["security"] == []}
    assert {
        "GET /api/v1/health/live",
        "POST /api/v1/launch/session",
        "GET /api/v1/problems",
        "GET /problems/{slug}",
    } <= public
    assert all(item["post"]["security"] == [] for item in document["webhooks"].values())
    assert document["webhooks"]["self_exclusion.started"]["post"]["operationId"] == (
        "self_exclusion_started_webhook"
    )


def _schemas_with_an_empty_alternative(node, where: str = "#"):
    if isinstance(node, list):
        for index, item in enumerate(node):
            yield from _schemas_with_an_empty_alternative(item, f"{where}/{index}")
    elif isinstance(node, dict):
        for keyword in ("anyOf", "oneOf"):
            if {} in node.get(keyword, ()):
                yield where
        for key, value in node.items():
            yield from _schemas_with_an_empty_alternative(value, f"{where}/{key}")


def test_no_nullable_field_is_said_as_anything_or_null(document):
    """A nullable JSON field says what it holds when not null (``JsonObject``): ``anyOf: [{},
    null]`` is "any value" twice over and tells a client nothing."""
    assert list(_schemas_with_an_empty_alternative(document)) == []
    fx = document["components"]["schemas"]["StatementPlayerOutput"]["properties"]["fx"]
    assert fx["type"] == ["object", "null"]


def test_the_page_links_of_every_list_are_links_the_api_accepts(document):
    """``next`` and ``previous`` examples are absolute URIs whose cursor the paginator reads
    back (DRF's default example ends in a stray quote)."""

    paginated = [
        schema
        for name, schema in document["components"]["schemas"].items()
        if name.startswith("Paginated")
    ]
    assert len(paginated) > 5
    for schema in paginated:
        for link, reverse in (("next", False), ("previous", True)):
            url = schema["properties"][link]["example"]
            parts = urlsplit(url)
            assert (parts.scheme, parts.netloc) == ("https", "api.example.org"), url
            request = Request(APIRequestFactory().get(parts.path, parse_qs(parts.query)))
            cursor = CreatedCursorPagination().decode_cursor(request)
            assert (cursor.position, cursor.reverse) == (EXAMPLE_POSITION, reverse), url
