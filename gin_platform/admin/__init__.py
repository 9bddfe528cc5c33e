"""The back office's pages (Django's admin, docs/backoffice.md), on the site of
gin_platform/staff/admin_site.py.

- ``audited``: the model admins every app's pages derive from: each change audited, each
  changelist limited to the staff user's operator scope; ``ReadOnlyAdmin``;
- ``changelist``: a from/to date filter and an "Export CSV" of the filtered changelist;
- ``tenancy``: operators, their keys, secrets and origins, players and sessions, launch
  tokens, socket tickets, Idempotency-Key records, the audit log, webhook deliveries;
- ``staff``: staff users, roles, TOTP devices, access change requests, django-axes' pages.

Django imports this package (admin autodiscovery); importing it registers the pages.
"""

from gin_platform.admin import staff, tenancy  # noqa: F401  (registers their pages)
