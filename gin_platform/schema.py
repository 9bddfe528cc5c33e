"""OpenAPI extensions: how our authentication classes appear in the schema."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class OperatorApiKeyScheme(OpenApiAuthenticationExtension):
    target_class = "gin_platform.authentication.OperatorApiKeyAuthentication"
    name = "operatorApiKey"
    priority = 1

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "gop_<prefix>_<secret>",
            "description": (
                "Operator API key. Optionally signed: X-Signature: t=<unix>,v1=<hex "
                "HMAC-SHA256 of '<t>.<raw body>'>."
            ),
        }


class PlayerTokenScheme(OpenApiAuthenticationExtension):
    target_class = "gin_platform.authentication.PlayerTokenAuthentication"
    name = "playerToken"
    priority = 1

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "gps_<token>",
            "description": "Short-lived player session token minted by the operator.",
        }
