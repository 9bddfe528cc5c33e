"""The hosted leaderboard page (docs/play.md "Leaderboards"): the HTML shell at
/play/leaderboards; its module is leaderboards/static/leaderboards/play/ and reuses the table
page's (games/static/games/play/)."""
