"""Who may call what: operators, players, staff."""

from rest_framework.permissions import BasePermission

from gin_platform.principals import OperatorPrincipal, PlayerPrincipal


class IsOperator(BasePermission):
    message = "This endpoint needs an operator API key"

    def has_permission(self, request, view) -> bool:
        return isinstance(request.user, OperatorPrincipal)


class IsPlayer(BasePermission):
    message = "This endpoint needs a player session token"

    def has_permission(self, request, view) -> bool:
        return isinstance(request.user, PlayerPrincipal)


class IsOperatorOrPlayer(BasePermission):
    message = "This endpoint needs an operator API key or a player session token"

    def has_permission(self, request, view) -> bool:
        return isinstance(request.user, OperatorPrincipal | PlayerPrincipal)


class IsStaff(BasePermission):
    """Back-office staff: a Django user with is_staff (session or basic auth)."""

    message = "This endpoint is for back-office staff"

    def has_permission(self, request, view) -> bool:
        user = request.user
        return bool(
            user is not None
            and not isinstance(user, OperatorPrincipal | PlayerPrincipal)
            and getattr(user, "is_authenticated", False)
            and getattr(user, "is_staff", False)
        )
