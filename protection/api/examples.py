"""OpenAPI examples of player protection's requests."""

from drf_spectacular.utils import OpenApiExample

SESSION_START = [
    OpenApiExample(
        "Ninety minutes, at most 50.00 lost",
        value={"duration_minutes": 90, "loss_limit": "50.00"},
        request_only=True,
    )
]
REALITY_CHECK_ANSWER = [
    OpenApiExample("Play on", value={"answer": "continue"}, request_only=True),
    OpenApiExample("End the session", value={"answer": "end_session"}, request_only=True),
]
