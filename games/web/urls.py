"""Routes of the hosted table page, mounted at /play/ by gin_platform.project.urls."""

from django.urls import path

from games.web import views

urlpatterns = [
    path("", views.PlayPageView.as_view(), name="play"),
    path("history", views.HistoryPageView.as_view(), name="play-history"),
    path("manifest.webmanifest", views.ManifestView.as_view(), name="play-manifest"),
    path("jsi18n/<str:language>.js", views.PageCatalogueView.as_view(), name="play-catalogue"),
]
