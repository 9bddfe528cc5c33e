"""Rate limits on the shared cache (Redis in production), per operator, player or address."""

from rest_framework.throttling import SimpleRateThrottle

from gin_platform.principals import OperatorPrincipal, PlayerPrincipal


class PrincipalRateThrottle(SimpleRateThrottle):
    """One bucket per caller; the rate depends on the kind of caller."""

    def allow_request(self, request, view):
        self.scope = self._scope_for(request.user)
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        return super().allow_request(request, view)

    def __init__(self) -> None:  # the rate is chosen per request in allow_request
        pass

    @staticmethod
    def _scope_for(user) -> str:
        if isinstance(user, OperatorPrincipal):
            return "operator"
        if isinstance(user, PlayerPrincipal):
            return "player"
        return "anon"

    def get_cache_key(self, request, view) -> str:
        user = request.user
        if isinstance(user, OperatorPrincipal | PlayerPrincipal):
            ident = user.throttle_ident
        elif user is not None and getattr(user, "is_authenticated", False):
            ident = f"user:{user.pk}"
        else:
            ident = f"ip:{self.get_ident(request)}"
        return f"throttle:{self.scope}:{ident}"
