"""Per-request reuse of the exchange rates shown beside amounts (docs/wallet.md
"display_amount"): one answer lists a match's stake, pot and seats, a lobby its rooms, each in the
player's display currency; each currency pair's latest rate is read once per request."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from wallet.selectors.rates import display_rates_reused


class DisplayRatesMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        with display_rates_reused():
            return self.get_response(request)
