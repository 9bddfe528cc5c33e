"""The network (docs/network.md "Rooms, membership and screen names"): the platform's one
network and its operator (staff), its settings, and each operator's membership."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from gin_platform.audit import audit_changes, audit_record
from gin_platform.http.problems import NotFoundProblem, Problem, ValidationProblem
from gin_platform.locks import lock_network, lock_operator_row
from gin_platform.models import Network, NetworkMembership, Operator
from gin_platform.tenancy.principals import Actor
from gin_platform.tenancy.selectors import network_cache_forget, network_get
from gin_platform.tenancy.services.operators import operator_create


class NetworkExistsProblem(Problem):
    slug = "network-exists"
    status = 409
    title = _("The network already exists")
    description = "The platform has one network; change its settings instead."


def _fee_share_bps(value: object) -> int:
    if type(value) is not int or not 0 <= value <= 10_000:
        raise ValidationProblem(
            gettext("One or more fields are invalid"),
            errors={"fee_share_bps": ["a whole number of basis points from 0 to 10000"]},
        )
    return value


@transaction.atomic
def network_create(
    *,
    name: str = "Gin Network",
    slug: str = "network",
    base_currency: str = "EUR",
    fee_share_bps: int = 2000,
    reveal_operators: bool = False,
    actor: Actor,
) -> Network:
    """The platform's network and the operator row that owns its rooms (staff, once). No
    API key is ever issued to that operator: nobody calls the API as the network."""
    if Network.objects.exists():
        raise NetworkExistsProblem("the platform already has its network")
    operator = operator_create(name=name, slug=slug, base_currency=base_currency, actor=actor)
    try:
        with transaction.atomic():
            network = Network.objects.create(
                operator=operator,
                fee_share_bps=_fee_share_bps(fee_share_bps),
                reveal_operators=bool(reveal_operators),
            )
    except IntegrityError as exc:  # a concurrent creation won (network_single_row)
        raise NetworkExistsProblem("the platform already has its network") from exc
    network_cache_forget()
    transaction.on_commit(network_cache_forget)
    audit_record(
        actor=actor,
        action="network.created",
        obj=network,
        operator=operator,
        data={"fee_share_bps": network.fee_share_bps, "reveal_operators": reveal_operators},
    )
    return network


@transaction.atomic
def network_update(
    *,
    actor: Actor,
    fee_share_bps: int | None = None,
    reveal_operators: bool | None = None,
) -> Network:
    """Staff change the network's fee share or whether opponents' operators are shown."""
    network = network_get()
    if network is None:
        raise NotFoundProblem("The platform has no network")
    locked = lock_network(network.pk)
    audit_changes(
        obj=locked,
        values={
            "fee_share_bps": None if fee_share_bps is None else _fee_share_bps(fee_share_bps),
            "reveal_operators": reveal_operators,
        },
        actor=actor,
        action="network.updated",
        operator=locked.operator,
    )
    network_cache_forget()
    transaction.on_commit(network_cache_forget)
    return locked


@transaction.atomic
def network_membership_update(
    *, operator: Operator, member: bool, all_rooms: bool | None = None, actor: Actor
) -> NetworkMembership:
    """An operator joins the network (``member``; again after leaving), leaves it, or
    chooses whether it offers every network room (``all_rooms``) or those it opts into one
    by one. Leaving takes nobody off a table: seated players play on (or leave), nobody of
    the operator sits down at a network table again until it rejoins."""
    network = network_get()
    if network is None:
        raise NotFoundProblem("The platform has no network")
    if network.operator_id == operator.pk:
        raise ValidationProblem(
            gettext("One or more fields are invalid"),
            errors={"member": ["the network's own operator is not a member"]},
        )
    lock_operator_row(operator.pk)
    membership = NetworkMembership.objects.filter(operator=operator).first()
    now = timezone.now()
    if membership is None:
        if not member:
            raise NotFoundProblem("This operator is not a member of the network")
        membership = NetworkMembership.objects.create(
            operator=operator, all_rooms=bool(all_rooms), joined_at=now
        )
        audit_record(
            actor=actor,
            action="network.joined",
            obj=membership,
            operator=operator,
            data={"all_rooms": membership.all_rooms},
        )
        return membership
    if member and not membership.is_member:
        membership.left_at = None
        membership.joined_at = now
        membership.save(update_fields=["left_at", "joined_at"])
        audit_record(actor=actor, action="network.joined", obj=membership, operator=operator)
    elif not member and membership.is_member:
        membership.left_at = now
        membership.save(update_fields=["left_at"])
        audit_record(actor=actor, action="network.left", obj=membership, operator=operator)
    audit_changes(
        obj=membership,
        values={"all_rooms": all_rooms},
        actor=actor,
        action="network.membership_updated",
        operator=operator,
    )
    return membership
