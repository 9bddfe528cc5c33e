"""Model admins that keep the back office's rules, for every app's admin pages: each change
is audited and each changelist limited to the staff user's operator scope
(docs/backoffice.md "Audit trail")."""

from __future__ import annotations

from django.contrib import admin
from django.core.exceptions import FieldDoesNotExist

from gin_platform.audit import audit_record
from gin_platform.models import Operator
from gin_platform.staff.scope import scope_queryset
from gin_platform.tenancy.principals import actor_for

# How a model leads to its operator, tried in order (``operator_path`` overrides).
OPERATOR_PATHS = (
    "operator",
    "room__operator",
    "match__operator",
    "player__operator",
    "transaction__operator",
    "account__operator",
)
# Never written to the audit log, whatever the model (hashes, keys, secrets).
UNAUDITED_FIELDS = frozenset({"password", "key", "key_hash", "token_hash", "secret"})


def operator_path(model) -> str | None:
    """The lookup from ``model`` to its Operator ("pk" for Operator itself), or None."""

    if model is Operator or (model._meta.proxy and model._meta.concrete_model is Operator):
        return "pk"
    for path in OPERATOR_PATHS:
        current = model
        for part in path.split("__"):
            try:
                field = current._meta.get_field(part)
            except FieldDoesNotExist:
                current = None
                break
            current = field.related_model if field.is_relation else None
            if current is None:
                break
        if current is Operator:
            return path
    return None


def _snapshot(obj) -> dict:
    """The object's field values as the audit log stores them (no secrets)."""
    values = {}
    for field in obj._meta.concrete_fields:
        if field.name in UNAUDITED_FIELDS or "secret" in field.name:
            continue
        values[field.name] = field.value_from_object(obj)
    if obj.pk is not None:
        for field in obj._meta.many_to_many:
            values[field.name] = sorted(str(o.pk) for o in getattr(obj, field.name).all())
    return values


class AuditedModelAdmin(admin.ModelAdmin):
    """Every admin class that can change anything derives from this (a test walks the
    registry): each save, delete, bulk delete and inline change writes an AuditEvent, like
    the API's services (docs/backoffice.md "Audit trail"): who (the staff user), when, what
    (``admin.add`` / ``admin.change`` / ``admin.delete`` of the object) and the values before
    and after. Changelists are limited to the operators in the staff user's scope
    (gin_platform/staff/scope.py), so another operator's object is not found."""

    operator_path: str | None = None  # None: derived from the model (OPERATOR_PATHS)

    def _operator_path(self) -> str | None:
        return self.operator_path or operator_path(self.model)

    def get_queryset(self, request):
        queryset = super().get_queryset(request)
        path = self._operator_path()
        if path is None:
            return queryset
        return scope_queryset(queryset, request.user, field=path)

    # --- the audit ---------------------------------------------------------------------
    def _operator_of(self, obj):
        path = operator_path(type(obj))
        if path is None:
            return None
        if path == "pk":
            return obj if isinstance(obj, Operator) else None
        current = obj
        for part in path.split("__"):
            current = getattr(current, part, None)
            if current is None:
                return None
        return current

    def _audit(self, request, action: str, obj, before: dict | None, after: dict | None):
        changes = {}
        for name in sorted(set(before or {}) | set(after or {})):
            old = (before or {}).get(name)
            new = (after or {}).get(name)
            if before is None or after is None or old != new:
                changes[name] = [old, new]
        operator = self._operator_of(obj)
        if action == "delete" and operator is obj:
            operator = None  # the row about to go: the audit row must not hold it
        audit_record(
            actor=actor_for(request.user),
            action=f"admin.{action}",
            obj=obj,
            operator=operator,
            data={"model": obj._meta.label_lower, "changes": changes},
        )

    def _before(self, obj) -> dict | None:
        if obj.pk is None:
            return None
        stored = type(obj)._default_manager.filter(pk=obj.pk).first()
        return None if stored is None else _snapshot(stored)

    def save_model(self, request, obj, form, change) -> None:
        before = self._before(obj) if change else None
        super().save_model(request, obj, form, change)
        self._audit(request, "change" if change else "add", obj, before, _snapshot(obj))

    def delete_model(self, request, obj) -> None:
        self._audit(request, "delete", obj, _snapshot(obj), None)
        super().delete_model(request, obj)

    def delete_queryset(self, request, queryset) -> None:
        for obj in queryset:
            self._audit(request, "delete", obj, _snapshot(obj), None)
        super().delete_queryset(request, queryset)

    def save_related(self, request, form, formsets, change) -> None:
        before_m2m = _snapshot(form.instance) if change else None
        before_inlines = {
            id(formset): {o.pk: _snapshot(o) for o in formset.get_queryset() if o.pk is not None}
            for formset in formsets
        }
        super().save_related(request, form, formsets, change)
        after = _snapshot(form.instance)
        m2m = {f.name for f in form.instance._meta.many_to_many}
        if before_m2m is not None and any(before_m2m.get(n) != after.get(n) for n in m2m):
            self._audit(request, "change", form.instance, before_m2m, after)
        for formset in formsets:
            known = before_inlines[id(formset)]
            for obj in getattr(formset, "new_objects", []):
                self._audit(request, "add", obj, None, _snapshot(obj))
            for obj, _fields in getattr(formset, "changed_objects", []):
                self._audit(request, "change", obj, known.get(obj.pk), _snapshot(obj))
            model = formset.model
            remaining = set(
                model._default_manager.filter(pk__in=list(known)).values_list("pk", flat=True)
            )
            for pk in set(known) - remaining:  # deleted: the instances' pk is None by now
                self._audit(request, "delete", model(pk=pk), known[pk], None)


class ReadOnlyAdmin(AuditedModelAdmin):
    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
