"""OpenAPI extensions: how our authentication classes appear in the schema."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class OperatorApiKeyScheme(OpenApiAuthenticationExtension):
    target_class = "gin_platform.http.authentication.OperatorApiKeyAuthentication"
    name = "operatorApiKey"
    priority = 1

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "gop_<prefix>_<secret>",
            "description": (
                "Operator API key. Optionally signed: X-Signature: t=<unix>,v1=<hex "
                "HMAC-SHA256 of the canonical request 'v1\\n<t>\\n<METHOD>\\n<path?query>"
                "\\n<Idempotency-Key>\\n<hex SHA-256 of the body>'>, each signature good "
                "once (docs/webhooks.md, 'Signing requests')."
            ),
        }


class PlayerTokenScheme(OpenApiAuthenticationExtension):
    target_class = "gin_platform.http.authentication.PlayerTokenAuthentication"
    name = "playerToken"
    priority = 1

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "gps_<token>",
            "description": "Short-lived player session token minted by the operator.",
        }


class StaffBasicScheme(OpenApiAuthenticationExtension):
    """HTTP Basic for staff, with failure throttling and lockout
    (gin_platform.http.authentication)."""

    target_class = "gin_platform.http.authentication.StaffBasicAuthentication"
    name = "basicAuth"
    priority = 1

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "basic",
            "description": (
                "Back-office staff. Repeated failures are throttled and then locked out "
                "(429 throttled / login-locked-out)."
            ),
        }
