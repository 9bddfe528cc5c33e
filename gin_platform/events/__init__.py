"""Operator events and webhooks (docs/webhooks.md).

- ``catalogue``: every event type the platform records and sends, with its meaning and the
  serializer that documents its ``data``;
- ``webhooks``: recording an event in the transaction that made it true, its webhook
  delivery, signed and retried with exponential backoff, every attempt logged;
- ``event_log``: reading the log (the events API's feed), webhook subscriptions, retention;
- ``webhook_targets``: where a webhook (or a seamless wallet call) may be sent: the URL
  rules and the address check at delivery;
- ``selectors``: an operator's webhook deliveries.

The delivery task is ``gin_platform.tasks.deliver_webhook``: it calls ``webhooks``, and
``webhooks`` queues it by name after the commit (gin_platform/enqueue.py).
"""
