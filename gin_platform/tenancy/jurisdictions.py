"""Jurisdiction profiles: what a regulator requires of a player's play, per operator
(``Operator.jurisdiction``; docs/player-protection.md "Profiles" gives each rule's source).

A profile fixes the defaults and what is mandatory; the operator chooses within it:

- ``reality_check_minutes``: the default interval of reality checks (None: none unless the
  operator sets one); ``reality_check_max_minutes``: the longest interval the operator may
  choose (None: the operator may also turn them off, with 0).
- ``session_limits_required``: a play session's duration and loss limits must be set before
  its first buy-in (``session-limits-required``).
- ``limit_reached``: what a reached session limit does to the game in progress:
  ``end_of_hand`` (the player leaves when the hand in play ends, forfeit-free: the match is
  voided, every stake back) or ``finish_match`` (the match is played out). Either way no new
  buy-in is taken; ``session_ends_on_limit`` says whether the session ends as well (else it
  only blocks new buy-ins until the player ends it).
- ``limit_increase_cooling_off``: how long a raised deposit or loss limit waits.
- ``time_out_days``: the breaks a player may take (a time-out refuses every buy-in and sit);
  ``self_exclusion_min_days``: the shortest self-exclusion.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Final, Literal

from django.db import models

END_OF_HAND: Final = "end_of_hand"
FINISH_MATCH: Final = "finish_match"
# Time-outs the player may choose: 24 hours, 7 days, 30 days, 6 weeks.
TIME_OUT_DAYS = (1, 7, 30, 42)
SELF_EXCLUSION_MAX_DAYS = 3650
REALITY_CHECK_MIN_MINUTES = 15  # the shortest interval anyone may choose
REALITY_CHECK_LONGEST_MINUTES = 240


@dataclass(frozen=True)
class JurisdictionProfile:
    code: str
    name: str
    reality_check_minutes: int | None
    reality_check_max_minutes: int | None
    session_limits_required: bool
    limit_reached: Literal["end_of_hand", "finish_match"]
    session_ends_on_limit: bool
    limit_increase_cooling_off: timedelta
    time_out_days: tuple[int, ...]
    self_exclusion_min_days: int

    def reality_check_interval(self, chosen_minutes: int | None) -> timedelta | None:
        """The interval in force: the operator's choice, else the profile's default."""
        minutes = chosen_minutes if chosen_minutes is not None else self.reality_check_minutes
        return None if not minutes else timedelta(minutes=minutes)


PROFILES: dict[str, JurisdictionProfile] = {
    profile.code: profile
    for profile in (
        JurisdictionProfile(
            code="uk",
            name="Great Britain (UK Gambling Commission)",
            reality_check_minutes=60,
            reality_check_max_minutes=60,
            session_limits_required=False,
            limit_reached=FINISH_MATCH,
            session_ends_on_limit=False,
            limit_increase_cooling_off=timedelta(hours=24),
            time_out_days=TIME_OUT_DAYS,
            self_exclusion_min_days=183,
        ),
        JurisdictionProfile(
            code="es",
            name="Spain (Dirección General de Ordenación del Juego)",
            reality_check_minutes=60,
            reality_check_max_minutes=60,
            session_limits_required=True,
            limit_reached=END_OF_HAND,
            session_ends_on_limit=True,
            limit_increase_cooling_off=timedelta(days=3),
            time_out_days=TIME_OUT_DAYS,
            self_exclusion_min_days=183,
        ),
        JurisdictionProfile(
            code="it",
            name="Italy (Agenzia delle Dogane e dei Monopoli)",
            reality_check_minutes=60,
            reality_check_max_minutes=None,
            session_limits_required=False,
            limit_reached=FINISH_MATCH,
            session_ends_on_limit=True,
            limit_increase_cooling_off=timedelta(days=7),
            time_out_days=TIME_OUT_DAYS,
            self_exclusion_min_days=30,
        ),
        JurisdictionProfile(
            code="mga",
            name="Malta (Malta Gaming Authority)",
            reality_check_minutes=60,
            reality_check_max_minutes=60,
            session_limits_required=False,
            limit_reached=FINISH_MATCH,
            session_ends_on_limit=False,
            limit_increase_cooling_off=timedelta(hours=24),
            time_out_days=TIME_OUT_DAYS,
            self_exclusion_min_days=183,
        ),
        JurisdictionProfile(
            code="none",
            name="No jurisdiction profile (the operator's own rules)",
            reality_check_minutes=None,
            reality_check_max_minutes=None,
            session_limits_required=False,
            limit_reached=FINISH_MATCH,
            session_ends_on_limit=False,
            limit_increase_cooling_off=timedelta(hours=24),
            time_out_days=TIME_OUT_DAYS,
            self_exclusion_min_days=1,
        ),
    )
}
JURISDICTIONS = tuple(PROFILES)


def jurisdiction_profile(code: str) -> JurisdictionProfile:
    """The profile named ``code`` (an ``Operator.jurisdiction``)."""
    return PROFILES[code]


def reality_check_minutes_allowed(profile: JurisdictionProfile, minutes: int | None) -> bool:
    """Whether an operator under ``profile`` may choose ``minutes`` (None: the default)."""
    if minutes is None:
        return True
    if minutes == 0:
        return profile.reality_check_max_minutes is None
    longest = profile.reality_check_max_minutes or REALITY_CHECK_LONGEST_MINUTES
    return REALITY_CHECK_MIN_MINUTES <= minutes <= longest


class JurisdictionSettings(models.Model):
    """The operator's player-protection settings (abstract: ``Operator``'s columns): the
    profile its players play under, and its reality-check interval within the profile
    (empty: the profile's default; 0: none, where the profile allows it)."""

    jurisdiction = models.CharField(
        max_length=8,
        choices=[(code, code) for code in JURISDICTIONS],
        default="none",
        db_default="none",
    )
    reality_check_minutes = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        abstract = True

    @property
    def protection_profile(self) -> JurisdictionProfile:
        """The jurisdiction profile its players play under (docs/player-protection.md)."""
        return jurisdiction_profile(self.jurisdiction)
