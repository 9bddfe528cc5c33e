"""PostgreSQL as Django's own backend has it, with timestamps read at C speed (``base``)."""
