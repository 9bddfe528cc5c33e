"""The demo: a real server and a scripted client talking HTTP (``make demo``)."""
