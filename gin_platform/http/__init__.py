"""The API's HTTP conventions, the same for every app's endpoints: problem+json errors,
content negotiation, the JSON parser, pagination, Idempotency-Key, rate limits,
authentication and permissions, CORS, request hygiene, and the OpenAPI document's account
of all of them."""
