"""The hosted table page (docs/play.md): the HTML shell at /play/ and its static assets."""
