"""Views: what people read - transcripts, leaderboards and crosstables, match and season
records, and the HTML report."""
