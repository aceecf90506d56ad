"""What players see, in the browser (docs/visibility.md): the GM's screen marks a hidden
combatant; the player's screen, which draws what the server gives his token, has no trace
of him until the GM reveals him, and then shows him (live, from the feed)."""

from __future__ import annotations

from typing import Any

from tests.builders import novus_stats
from tests.web.conftest import LAPTOP, PHONE, screenshot
from tests.web.test_replay import Fight

AMBUSHER = "Zqx the Lurker"


def test_a_hidden_ambusher_is_marked_for_the_gm_and_absent_for_the_player_until_revealed(
    open_context: Any,
) -> None:
    # given a fight with a hero, a goblin and an ambusher hidden from the players
    f = Fight(open_context(LAPTOP).base, "novus", "The mill")
    hero = f.add("Hero", novus_stats(), "heroes")
    f.add("Goblin", novus_stats(), "raiders")
    r = f.http.post(
        f"/encounters/{f.id}/combatants",
        json={"name": AMBUSHER, "side": "raiders", "stats": novus_stats()}
        | {"hidden": True, "until_acting": False},
    )
    assert r.status_code == 201, r.text
    ambusher = r.json()["id"]
    token = f.http.post(f"/encounters/{f.id}/tokens", json={"combatants": [hero]}).json()["token"]
    # when the GM and the player open the table
    gm = open_context(LAPTOP).page()
    gm.goto(f"/e/{f.id}#token={f.gm}")
    gm.locator(f'article.card[data-name="{AMBUSHER}"] .badge.secret').wait_for()
    player = open_context(PHONE).page()
    player.goto(f"/e/{f.id}#token={token}")
    player.locator('article.card[data-name="Goblin"]').wait_for()
    # then the GM sees him marked; the player's page holds no trace of him
    assert gm.locator(f'article.card[data-name="{AMBUSHER}"]').count() == 1
    assert AMBUSHER not in player.content() and ambusher not in player.content()
    screenshot(gm, "hidden-gm-laptop")
    screenshot(player, "hidden-player-phone")
    # when the GM reveals him, the player's screen shows him (from the live feed)
    f.cmd({"type": "reveal_combatant", "combatant": ambusher})
    player.locator(f'article.card[data-name="{AMBUSHER}"]').wait_for()
    gm.locator(f'article.card[data-name="{AMBUSHER}"]:not(.hidden-from-players)').wait_for()
