"""Open a network room (docs/network.md): the options of POST /api/v1/rooms, as JSON."""

import json

from django.core.management.base import BaseCommand, CommandError
from rest_framework import serializers

from games import services
from games.api.serializers import RoomCreateInput
from gin_platform.api.inputs import validated
from gin_platform.http.problems import Problem
from gin_platform.tenancy import selectors
from gin_platform.tenancy.principals import Actor


class Command(BaseCommand):
    help = (
        "Open a network room. OPTIONS is the JSON body of POST /api/v1/rooms (amounts as "
        'decimal strings), e.g. \'{"name": "Network FTK", "variant": "ftk", "stake": "5.00", '
        '"fee_bps": 500}\'.'
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("options", help="The room's options as JSON")

    def handle(self, *args, **options) -> None:
        network = selectors.network_get()
        if network is None:
            raise CommandError("create the network first (manage.py network_create)")
        try:
            body = json.loads(options["options"])
        except json.JSONDecodeError as exc:
            raise CommandError(f"OPTIONS is not JSON: {exc}") from exc
        try:
            data = validated(RoomCreateInput, body, context={"operator": network.operator})
        except serializers.ValidationError as exc:
            raise CommandError(json.dumps(exc.detail)) from exc
        try:
            room = services.network_room_create(actor=Actor.system("network_room_create"), **data)
        except Problem as exc:
            raise CommandError(exc.detail) from exc
        self.stdout.write(f"network room {room.pk}: {room.name} ({room.variant}, {room.currency})")
