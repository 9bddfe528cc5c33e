"""The admin app with the back office's site as its default (gin_platform/admin_site.py):
every ``admin.register`` lands on the site that asks money-moving roles for a TOTP code."""

from django.contrib.admin.apps import AdminConfig


class StaffAdminConfig(AdminConfig):
    default_site = "gin_platform.admin_site.StaffAdminSite"
