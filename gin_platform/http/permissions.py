"""Who may call what: operators, players, staff."""

from __future__ import annotations

from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import BasePermission

from gin_platform.staff.otp import OtpRequiredProblem, otp_verified
from gin_platform.staff.roles import otp_required
from gin_platform.staff.scope import operator_scope
from gin_platform.tenancy.principals import OperatorPrincipal, PlayerPrincipal


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


class HasStaffPermission(BasePermission):
    """A staff user holding a Django permission (through a role, docs/backoffice.md), never
    ``is_staff`` alone; superusers hold them all. Use after ``IsStaff``:

        permission_classes = (IsStaff, HasStaffPermission("wallet.view_exchangerate",
                                                          POST="wallet.add_exchangerate"))

    The first permission guards every method without its own. ``money`` names the methods
    that move money: a role that needs a second factor must have passed it (403
    ``otp-required``). ``all_operators``: the endpoint spans every operator, so a staff user
    limited to some operators is refused."""

    message = "Your back-office role does not allow this"

    def __init__(
        self,
        permission: str,
        *,
        money: tuple[str, ...] = (),
        all_operators: tuple[str, ...] = (),
        **per_method: str,
    ) -> None:
        self.permission = permission
        self.per_method = {method.upper(): name for method, name in per_method.items()}
        self.money = frozenset(m.upper() for m in money)
        self.all_operators = frozenset(m.upper() for m in all_operators)

    def __call__(self) -> HasStaffPermission:
        return self  # DRF instantiates permission_classes; this one is configured already

    def required(self, method: str) -> str:
        method = "GET" if method in ("HEAD", "OPTIONS") else method
        return self.per_method.get(method, self.permission)

    def has_permission(self, request, view) -> bool:
        user = request.user
        if not IsStaff().has_permission(request, view):
            return False
        if not user.has_perm(self.required(request.method)):
            return False
        if request.method in self.all_operators and operator_scope(user) is not None:
            raise PermissionDenied(
                "This action spans every operator; your access is limited to some"
            )
        if request.method in self.money and otp_required(user) and not otp_verified(request, user):
            raise OtpRequiredProblem(
                "This action moves money: log in with your TOTP token or send it in X-OTP"
            )
        return True
