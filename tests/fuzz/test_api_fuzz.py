"""API fuzzing (docs/api-fuzzing.md): schemathesis against the served OpenAPI schema.

Every operation of ``/api/v1/schema/`` (whatever wallet/, games/ and settlement/ add) is
fuzzed in-process over WSGI with the credential its ``security`` names, positive and
negative inputs, and each response must be no 5xx, a documented status code, a documented
content type, a body that conforms to the documented schema, and documented headers.

Bounded for CI (about FUZZ_MAX_EXAMPLES examples per operation, derandomized with a fixed
seed); docs/api-fuzzing.md says how to run a longer campaign.
"""

from __future__ import annotations

import os

import schemathesis
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from gin_platform.project.wsgi import application
from tests.fuzz import figures
from tests.fuzz import world as world_module
from tests.fuzz.known_bugs import known_bug_for

SCHEMA_URL = "/api/v1/schema/"
MAX_EXAMPLES = int(os.environ.get("FUZZ_MAX_EXAMPLES", "25"))
SEED = int(os.environ.get("FUZZ_SEED", "8038"))
WRITE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
]

# Operations left out of the fuzz run entirely, "METHOD /path" -> the reason. Empty: every
# operation of the schema is fuzzed. Known bugs of other apps do not exclude operations,
# only their triggering inputs (tests/fuzz/known_bugs.py). Anything added here must be
# repeated in docs/api-fuzzing.md.
EXCLUDED_OPERATIONS: dict[str, str] = {}

# Values known to break web backends, mixed into generated strings and integers wherever
# the schema allows them (random generation alone almost never produces them): NUL bytes
# (PostgreSQL refuses them in text), integers past 64 bits, special floats, path tricks,
# right-to-left overrides, astral characters.
HOSTILE_STRINGS = [
    "\x00",
    "a\x00b",
    "%00",
    "99999999999999999999999",
    "-9223372036854775809",
    "1e309",
    "NaN",
    "-Infinity",
    "0x10",
    "../../etc/passwd",
    "' OR '1'='1",
    "\u202e\u0041",
    "\U0001f0a1",
    "null",
    "true",
    " ",
]
HOSTILE_INTEGERS = [2**63, -(2**63) - 1, 2**31, -(2**31) - 1, 10**30, -1, 0]
HOSTILE_PROBABILITY = 0.15

CONFIG = schemathesis.Config.from_dict(
    {
        "seed": SEED,
        "suppress-health-check": ["all"],
        "dictionaries": {
            "hostile-strings": {"values": HOSTILE_STRINGS},
            "hostile-integers": {"values": HOSTILE_INTEGERS},
        },
        "generation": {
            "max-examples": MAX_EXAMPLES,
            "deterministic": True,
            "database": "none",
            # Credentials come from the World (tests/fuzz/world.py), not from generation.
            "with-security-parameters": False,
            "dictionaries": {
                "string": {"dictionary": "hostile-strings", "probability": HOSTILE_PROBABILITY},
                "integer": {"dictionary": "hostile-integers", "probability": HOSTILE_PROBABILITY},
            },
        },
        "phases": {"stateful": {"enabled": False}},
    }
)

schema = schemathesis.openapi.from_wsgi(SCHEMA_URL, application, config=CONFIG)
if EXCLUDED_OPERATIONS:
    schema = schema.exclude(func=lambda ctx: ctx.operation.label in EXCLUDED_OPERATIONS)

# The raw operations, for the World's generic id harvesting (list endpoints).
RAW_PATHS = schema.raw_schema["paths"]


# Path parameters as they go into the URL (already percent-encoded). schemathesis keeps
# control characters out of paths on purpose (strict proxies refuse them), but our stack
# passes them through to the views, so they are fuzzed here.
HOSTILE_PATH_VALUES = ["%00", "1%00", "99999999999999999999999", "-1", "%E2%80%AE", "null"]


@schema.hook
def flatmap_path_parameters(context, path_parameters):
    """Real ids of the seeded World instead of generated values, so the fuzzer reaches past
    the 404 into the views: a third of the cases use the first (consistent) real value of
    every parameter that has one, a third mix real, generated and hostile values per
    parameter, and a third keep what schemathesis generated."""
    world = world_module.CURRENT
    if world is None or not path_parameters or context.operation is None:
        return st.just(path_parameters)
    real = {name: world.path_values(context.operation.path, name) for name in path_parameters}
    consistent = {name: (real[name] or [value])[0] for name, value in path_parameters.items()}
    mixed = st.fixed_dictionaries(
        {
            name: st.sampled_from([value, *real[name], *HOSTILE_PATH_VALUES])
            for name, value in path_parameters.items()
        }
    )
    return st.one_of(st.just(consistent), mixed, st.just(path_parameters))


@schema.parametrize()
def test_api(case, fuzz_world):
    bug = known_bug_for(case)
    if bug is not None:  # an input class of a known bug of this operation: not sent
        figures.hold_back(case.operation.label, bug.owner)
        return
    operation = case.operation.definition.raw
    security = operation.get("security", schema.raw_schema.get("security"))
    authorization = fuzz_world.authorization(security)
    if authorization is None:
        case.headers.pop("Authorization", None)
    else:
        case.headers["Authorization"] = authorization
    if case.method.upper() in WRITE_METHODS and any(
        p.get("in") == "header" and p.get("name", "").lower() == "idempotency-key"
        for p in operation.get("parameters", [])
    ):
        case.headers["Idempotency-Key"] = fuzz_world.idempotency_key()
    response = case.call()
    figures.record(case.operation.label, response.status_code)
    case.validate_response(response, checks=CHECKS)
