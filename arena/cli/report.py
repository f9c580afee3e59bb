"""``arena report``: the HTML report, thin over arena.views.report."""

from __future__ import annotations

import click

DEFAULT_FOLDER = "results/report"


@click.command("report")
@click.option("--season", "season_name", help="Only this season (default: every league).")
@click.option("-o", "--output", "folder", default=DEFAULT_FOLDER, show_default=True,
              metavar="DIR", help="The folder to write (index.html and its pages).")
@click.option("--matches", "how", default="sample", show_default=True,
              metavar="all|faults|sample|N",
              help="Which matches get a replay page: the faulty ones and the first of "
              "every pair of bots (sample), the faulty ones and N per pair, only the "
              "faulty ones, or all.")
@click.option("--match", "match_id", type=int, metavar="ID",
              help="Only the replay page of stored match ID.")
@click.option("--open", "open_it", is_flag=True, help="Open it in the web browser.")
@click.pass_obj
def report_command(registry, season_name, folder, how, match_id, open_it) -> None:
    """Write an HTML report: leagues and leaderboards, a page per season (standings,
    rating chart, crosstable, faults) and replay pages of matches. It opens from disk,
    with no network."""
    from .. import db
    from ..views.report import parse_matches, write_report

    matches = parse_matches(how)
    engine = db.connect(registry.db_url, create=False)
    written = write_report(engine, registry, folder, season_name, matches, match_id)
    page = written.pages[-1] if match_id is not None else written.index
    click.echo(f"wrote {len(written.pages)} page(s), {written.size / 1e6:.1f} MB: {page}")
    if open_it:
        import webbrowser

        webbrowser.open(page.resolve().as_uri())
