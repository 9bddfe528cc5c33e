"""The demo's script: everything an operator's integration does, over HTTP.

Seeds exchange rates (staff API), creates players and funds their wallets (operator API),
opens a room of each variant, then two players sit and play a whole game in each room,
their moves chosen by the engine's bot from each player's own view. Prints every hand
(melds, lay-offs, score), each settlement statement and the wallets before and after.

Then the same for an operator in seamless mode (docs/wallet.md "Seamless wallet"): its
players' money stays in the operator's own wallet (the reference wallet server,
gin_platform/demo/seamless_wallet.py), which the platform debits at the buy-in and credits
with the payout; printed with every wallet call and the ledger's mirror of it.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal

from games.engine import choose_action_from_view
from gin_platform.demo.client import ApiClient

RATES = (  # base, quote, rate: a demo feed
    ("EUR", "USD", "1.0800"),
    ("USD", "EUR", "0.9259"),
    ("EUR", "GBP", "0.8600"),
    ("GBP", "EUR", "1.1628"),
)
ROOMS = (
    {
        "name": "First To Knock 5.00",
        "variant": "ftk",
        "currency": "EUR",
        "stake": "5.00",
        "fee_bps": 500,
    },
    {
        "name": "Match Play to 100, 10.00",
        "variant": "match",
        "currency": "EUR",
        "target": 100,
        "stake": "10.00",
        "fee_bps": 500,
    },
    {
        "name": "Money Play to 50, 0.10 a point",
        "variant": "money",
        "currency": "EUR",
        "target": 50,
        "stake_per_point_choices": ["0.10"],
        "cashier_min": "10.00",
        "cashier_max": "100.00",
        "fee_bps": 500,
    },
)
MONEY_PLAY_SIT = {"cashier_amount": "40.00", "stake_per_point": "0.10"}


def money(value: dict | None) -> str:
    if not value:
        return "-"
    text = f"{value['amount']} {value['currency']}"
    display = value.get("display")
    if display:
        text += f" (= {display['amount']} {display['currency']})"
    return text


def cards(items) -> str:
    return " ".join(items)


@dataclass
class DemoPlayer:
    name: str
    id: str
    client: ApiClient


class Scenario:
    def __init__(
        self, *, base_url: str, operator_key: str, staff: tuple[str, str], say: Callable
    ) -> None:
        self.operator = ApiClient(base_url, token=operator_key)
        self.base_url = base_url
        self.staff_auth = base64.b64encode(f"{staff[0]}:{staff[1]}".encode()).decode()
        self.say = say

    # --- setting up ----------------------------------------------------------------------
    def seed_rates(self) -> None:
        staff = ApiClient(self.base_url)
        for base, quote, rate in RATES:
            staff.request(
                "POST",
                "/api/v1/staff/exchange-rates",
                {
                    "base": base,
                    "quote": quote,
                    "rate": rate,
                    "as_of": datetime.now(UTC).isoformat(),
                    "source": "demo feed",
                },
                headers={"Authorization": f"Basic {self.staff_auth}"},
            )
        self.say(f"Exchange rates: {', '.join(f'1 {b} = {r} {q}' for b, q, r in RATES)}")

    def player(self, ref: str, *, wallet: str, display: str, deposit: str | None) -> DemoPlayer:
        body = self.operator.write(
            "POST",
            "/api/v1/players",
            {
                "external_ref": ref,
                "display_name": ref.title(),
                "wallet_currency": wallet,
                "display_currency": display,
                "kyc_status": "verified",
            },
        )
        if deposit is not None:
            self.operator.write(
                "POST",
                f"/api/v1/players/{body['id']}/deposits",
                {"amount": deposit, "currency": wallet},
            )
        session = self.operator.write("POST", f"/api/v1/players/{body['id']}/sessions")
        funded = f"deposited {deposit} {wallet}" if deposit else "money in the operator's wallet"
        self.say(f"Player {ref}: wallet in {wallet}, shown in {display}; {funded}")
        return DemoPlayer(ref, body["id"], self.operator.with_token(session["token"]))

    def wallet(self, player: DemoPlayer) -> str:
        return money(self.operator.get(f"/api/v1/players/{player.id}/wallet")["balance"])

    # --- playing -------------------------------------------------------------------------
    def run(self) -> None:
        self.seed_rates()
        alice = self.player("alice", wallet="EUR", display="USD", deposit="500.00")
        bob = self.player("bob", wallet="USD", display="USD", deposit="500.00")
        for spec in ROOMS:
            room = self.operator.write("POST", "/api/v1/rooms", spec)
            self.play_room(room, alice, bob)

    def run_seamless(self, wallet_server) -> None:
        """An operator whose players' balance stays in its own wallet (seamless mode)."""
        self.say("")
        self.say("=" * 78)
        self.say("Seamless wallet: the operator keeps the balance, the platform calls it")
        self.say("=" * 78)
        setting = self.operator.write(
            "PUT",
            "/api/v1/operators/me/wallet",
            {"mode": "seamless", "base_url": wallet_server.base_url, "timeout_ms": 3000},
        )
        self.say(f"Wallet mode {setting['mode']}, operator wallet at {setting['base_url']}")
        carol = self.player("carol", wallet="EUR", display="EUR", deposit=None)
        dave = self.player("dave", wallet="EUR", display="EUR", deposit=None)
        for player in (carol, dave):
            wallet_server.set_balance(player.name, "100.00")
        room = self.operator.write("POST", "/api/v1/rooms", ROOMS[0])
        self.play_room(
            room,
            carol,
            dave,
            balance=lambda player: f"{wallet_server.balance(player.name)} EUR",
            settled=lambda statement: self.wait_for_credits(wallet_server, statement),
        )
        self.say("Calls the platform made to the operator's wallet (each applied once):")
        for transaction_id, call in wallet_server.applied():
            self.say(f"  {call.kind:<8} {call.player_id:<6} {call.amount:>7} EUR  {transaction_id}")
        self.say("The platform's ledger mirrors each call (the platform wallet is only transit):")
        for player in (carol, dave):
            page = self.operator.get(f"/api/v1/players/{player.id}/transactions")
            lines = [
                f"{t['kind']} {t['wallet_change']['amount']}"
                for t in reversed(page["results"])
                if t["wallet_change"]
            ]
            self.say(f"  {player.name}: {', '.join(lines)}; platform wallet {self.wallet(player)}")

    def wait_for_credits(self, wallet_server, statement: dict, timeout: float = 15) -> None:
        """Payout credits go to the operator after the settlement commits (retried until
        acknowledged): wait until every player paid something has had theirs."""
        expected = sum(1 for p in statement["players"] if Decimal(p["payout"]["amount"]) > 0)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if len(wallet_server.applied("credit")) >= expected:
                return
            time.sleep(0.2)
        self.say("  (payout credits still pending: the platform keeps retrying them)")

    def play_room(
        self,
        room: dict,
        first: DemoPlayer,
        second: DemoPlayer,
        *,
        balance: Callable[[DemoPlayer], str] | None = None,
        settled: Callable[[dict], None] | None = None,
    ) -> None:
        balance = balance or self.wallet
        self.say("")
        self.say("=" * 78)
        self.say(f"{room['name']}  ({room['variant']}, fee {room['fee_bps'] / 100:.2f}%)")
        self.say("=" * 78)
        before = {p.name: balance(p) for p in (first, second)}
        lobby = first.client.get(f"/api/v1/lobby/{room['id']}")
        table_id = lobby["tables"][0]["id"]
        sit = MONEY_PLAY_SIT if room["variant"] == "money" else {}
        seats = {}
        for player in (first, second):
            seat = player.client.post(f"/api/v1/tables/{table_id}/sit", sit)
            seats[seat["position"]] = player
            self.say(
                f"{player.name} sits at seat {seat['position']}, escrow {money(seat['amount'])}"
            )
        match_id = seat["match_id"]
        final = self.play_match(match_id, seats)
        result = final["match"]
        winner = result["winner_seat"]
        self.say(
            f"Game over: {'nobody' if winner is None else seats[winner].name} wins; "
            f"hand points {result['hand_points']}, hands won {result['hands_won']}"
        )
        statement = self.operator.get(f"/api/v1/settlements/{match_id}")["statement"]
        self.print_statement(statement, seats)
        if settled is not None:
            settled(statement)
        for player in (first, second):
            self.say(f"  wallet {player.name}: {before[player.name]}  ->  {balance(player)}")

    def play_match(self, match_id: int, seats: dict[int, DemoPlayer]) -> dict:
        shown: set[int] = set()
        actions = 0
        while True:
            views = {
                seat: p.client.get(f"/api/v1/matches/{match_id}/view") for seat, p in seats.items()
            }
            for view in views.values():
                for hand in (view.get("previous_hand"), view.get("hand")):
                    if hand and hand.get("outcome") and hand["number"] not in shown:
                        shown.add(hand["number"])
                        self.print_hand(hand, seats)
            view = views[0]
            if view["match"]["status"] != "running":
                return view
            to_act = view["hand"]["to_act"]
            mine = views[to_act]
            move = choose_action_from_view(mine["hand"])
            seats[to_act].client.post(
                f"/api/v1/matches/{match_id}/actions", {**move, "expected_seq": mine["seq"]}
            )
            actions += 1

    def print_hand(self, hand: dict, seats: dict[int, DemoPlayer]) -> None:
        outcome = hand["outcome"]
        name = {seat: player.name for seat, player in seats.items()}
        if outcome["kind"] == "void":
            self.say(f"Hand {hand['number']}: void (stock exhausted, R7): redealt")
            return
        result = outcome["result"]
        knocker = outcome["knocker"]
        defender = 1 - knocker
        self.say(
            f"Hand {hand['number']}: {name[knocker]} goes out ({outcome['kind']}), "
            f"putting down {hand.get('knock_card') or '-'}"
        )
        for seat, side in ((knocker, "knocker"), (defender, "defender")):
            self.say(
                f"  {name[seat]:>6} melds {self.melds(result[f'{side}_melds'])}  deadwood "
                f"{cards(result[f'{side}_deadwood_cards']) or '-'} = {result[f'{side}_deadwood']}"
            )
        if result["layoffs"]:
            laid = ", ".join(
                f"{lay['card']} on meld {lay['meld_index'] + 1}" for lay in result["layoffs"]
            )
            self.say(f"  {name[defender]} lays off {laid}")
        winner = name[outcome["winner"]] if outcome["winner"] is not None else "nobody"
        self.say(f"  -> {winner} scores {outcome['points']}")

    @staticmethod
    def melds(melds: list[dict]) -> str:
        return " | ".join(cards(meld["cards"]) for meld in melds) or "-"

    def print_statement(self, statement: dict, seats: dict[int, DemoPlayer]) -> None:
        self.say(f"Settlement statement ({statement['ledger_reference']}):")
        if statement.get("money_play"):
            mp = statement["money_play"]
            scores = mp["scores"]
            self.say(
                f"  final scores {scores['totals']} = hand points {scores['hand_points']} "
                f"+ line {scores['line_bonus']} + target {scores['target_bonus']} "
                f"+ zero-point {scores['zero_point_bonus']}"
            )
            self.say(
                f"  winnings {money(mp['winnings_before_caps'])} before caps, "
                f"{money(mp['winnings'])} after; caps {mp['caps_applied'] or 'none'}"
            )
        self.say(f"  escrow {money(statement['escrow'])}, fee {money(statement['fee'])}")
        for line in statement["lines"]:
            self.say(
                f"    seat {line['seat']} {seats[line['seat']].name:>6}  "
                f"{line['component']:<18} {line['amount']:>9} {line['currency']}"
            )
        for player in statement["players"]:
            fx = player["fx"]
            rate = f" at {Decimal(fx['rate']):.6f} {fx['direction']}" if fx else ""
            self.say(
                f"  {seats[player['seat']].name}: paid {money(player['payout'])}, net "
                f"{money(player['net'])}, credited {money(player['credited'])}{rate}"
            )
