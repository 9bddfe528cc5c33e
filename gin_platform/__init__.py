"""The platform: settings, tenancy, authentication, API conventions, audit log.

The design card calls this package ``platform``; that name would shadow the standard
library's ``platform`` module (``import uuid`` fails on Python 3.11), so the package is
``gin_platform`` and its Django app label is ``platform``.
"""

from gin_platform.project.celery import app as celery_app

__all__ = ("celery_app",)
