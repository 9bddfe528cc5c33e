"""The platform's languages (docs/play.md "Languages"): which ones it ships, matching a
player's tag to one of them, and the message catalogues under ``locale/``."""
