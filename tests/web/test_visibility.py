"""What players see, in the browser (docs/visibility.md): the GM's screen marks a hidden
combatant; the player's screen, which draws what the server gives his token, has no trace
of him until the GM reveals him, and then shows him (live, from the feed). Concealed
health: the player's screen shows the GM's combatant's described state ("hurt"), never his
figures, and nothing once the GM shows nothing; the GM's screen says what players see and
lists his secret notes."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from tests.builders.novus import novus_stats
from tests.builders.phantasia import PC
from tests.web.conftest import LAPTOP, PHONE, screenshot
from tests.web.test_replay import Fight

AMBUSHER = "Zqx the Lurker"
TALL_TABLET = {"width": 820, "height": 1180}
OGRE_HITS, AFTER = 137, 126  # the GM's figures: on no player's page
NOTE = "Fears fire; flees at half hits"
FIGHT_NOTE = "The bridge gives way in round 3"


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


def ogre_fight(base: str) -> tuple[Fight, str, str]:
    """Anna's hero (a player link) against the GM's ogre, 137 hits, who has taken 11."""
    f = Fight(base, "novus", "Under the bridge")
    hero = f.add("Hero", novus_stats(hits=40), "heroes")
    ogre = f.add("Ogre", novus_stats(hits=OGRE_HITS), "raiders")
    f.cmd({"type": "adjust_hits", "combatant": ogre, "amount": AFTER - OGRE_HITS})
    r = f.http.post(f"/encounters/{f.id}/tokens", json={"combatants": [hero], "label": "Anna"})
    assert r.status_code == 201, r.text
    return f, ogre, r.json()["token"]


def no_gm_figures(page: Any) -> None:
    text = page.inner_text("body")
    for figure in (str(OGRE_HITS), str(AFTER)):
        assert figure not in text
    for word in ("null", "undefined", "NaN"):
        assert word not in text


def test_given_the_gms_hurt_ogre_when_a_player_opens_the_table_then_he_reads_hurt_never_hits(
    open_context: Any,
) -> None:
    # given the GM's ogre at 126 of 137 hits, described to players (the default)
    f, _, token = ogre_fight(open_context(LAPTOP).base)
    # when Anna opens the table on her phone
    player = open_context(PHONE).page()
    player.goto(f"/e/{f.id}#token={token}")
    ogre = player.locator('article.card[data-name="Ogre"]')
    # then the ogre's card says "hurt", its meter says it in words, and no figure of his shows
    expect(ogre.locator(".stat.big dd")).to_have_text("hurt")
    meter = ogre.locator(".meter")
    expect(meter).to_have_attribute("aria-valuetext", "hurt")
    assert str(OGRE_HITS) not in meter.evaluate("m => m.outerHTML")
    expect(player.locator('article.card[data-name="Hero"] .stat.big dd')).to_have_text("40 / 40")
    player.locator("body[data-ready]").wait_for()
    no_gm_figures(player)
    ogre.scroll_into_view_if_needed()
    screenshot(player, "concealed-player-phone")
    # when the GM shows players nothing of the ogre's health, from his card's tools
    gm = open_context(TALL_TABLET).page()
    gm.goto(f"/e/{f.id}#token={f.gm}")
    gm_ogre = gm.locator('article.card[data-name="Ogre"]')
    expect(gm_ogre.locator(".badge.players-see")).to_have_text("players see: hurt")
    gm_ogre.locator("summary", has_text="GM tools").click()
    gm_ogre.get_by_label("Adjust Ogre").select_option(label="show health to players")
    gm_ogre.get_by_label("players see", exact=True).select_option(label="nothing")
    gm_ogre.get_by_role("button", name="Apply").click()
    # then the GM's card says so, and Anna's card shows no state (from the live feed)
    expect(gm_ogre.locator(".badge.players-see")).to_have_text("players see: nothing")
    expect(ogre.locator(".stat.big dd")).to_have_text("— not shown")
    expect(ogre.locator(".meter")).to_have_attribute("aria-valuetext", "not shown")
    expect(ogre.locator(".meter span")).to_have_attribute("style", "width: 0%;")
    no_gm_figures(player)


def test_given_a_gm_at_the_table_when_he_takes_notes_then_only_his_screen_lists_them(
    open_context: Any,
) -> None:
    # given the ogre fight, the GM on a tablet and Anna on her phone
    f, ogre, token = ogre_fight(open_context(LAPTOP).base)
    gm = open_context(TALL_TABLET).page()
    gm.goto(f"/e/{f.id}#token={f.gm}")
    player = open_context(PHONE).page()
    player.goto(f"/e/{f.id}#token={token}")
    player.locator("body[data-ready]").wait_for()
    # when he notes something on the ogre (his card's tools) and on the fight (his notes)
    gm_ogre = gm.locator('article.card[data-name="Ogre"]')
    gm_ogre.locator("summary", has_text="GM tools").click()
    gm_ogre.get_by_label("Adjust Ogre").select_option(label="take a note (only you see it)")
    gm_ogre.get_by_label("text", exact=True).fill(NOTE)
    gm_ogre.get_by_role("button", name="Apply").click()
    expect(gm_ogre.locator(".secret-notes")).to_contain_text(NOTE)
    expect(gm_ogre.locator(".secret-notes")).to_contain_text("only you see this")
    secrets = gm.locator("section.area-secrets")
    gm.locator("body:not(.busy)").wait_for()
    secrets.get_by_label("For the whole fight").select_option(label="note on the fight")
    secrets.get_by_label("text", exact=True).fill(FIGHT_NOTE)
    secrets.get_by_role("button", name="Apply").click()
    # then his screen lists both, marked secret, and says how players see health
    expect(gm.locator("#fight-notes")).to_contain_text(FIGHT_NOTE)
    expect(secrets).to_contain_text("Your combatants: described")
    expect(gm_ogre.locator(".badge.players-see")).to_have_text("players see: hurt")
    expect(gm.locator('article.card[data-name="Hero"] .badge.players-see')).to_have_count(0)
    # when he describes the party's health to the players too (his notes' form)
    gm.locator("body:not(.busy)").wait_for()
    secrets.get_by_label("For the whole fight").select_option(label="show health to players")
    described = "described (hurt, badly hurt…)"
    secrets.get_by_label("players see", exact=True).select_option(label=described)
    secrets.get_by_label("whose health", exact=True).select_option(label="the party")
    secrets.get_by_role("button", name="Apply").click()
    # then Anna's hero is marked as the others see him
    expect(gm.locator('article.card[data-name="Hero"] .badge.players-see')).to_have_text(
        "players see: unhurt"
    )
    expect(secrets).to_contain_text("The party: described")
    gm_ogre.locator("summary", has_text="GM tools").click()  # folded for the screenshots
    gm.evaluate("window.scrollTo(0, 0)")
    screenshot(gm, "concealed-gm-tablet")
    gm.set_viewport_size(PHONE)
    gm_ogre.scroll_into_view_if_needed()
    screenshot(gm, "concealed-gm-phone")
    # and Anna's screen, which follows the same feed (up to a later move), holds neither note
    f.cmd({"type": "show_health", "shown": "none", "combatant": ogre})
    expect(player.locator('article.card[data-name="Ogre"] .meter')).to_have_attribute(
        "aria-valuetext", "not shown"
    )
    for text in (NOTE, FIGHT_NOTE):
        assert text not in player.content()


def test_given_a_phantasia_foe_when_the_player_reads_in_spanish_then_his_state_is_in_spanish(
    open_context: Any,
) -> None:
    # given a PHANTÄSIA fight: Ana (a player link) and the narrator's hurt orc
    f = Fight(open_context(LAPTOP).base, "phantasia", "El puente")
    ana = f.add("Ana", PC, "heroes")
    orc = f.add("Orc", PC | {"controller": "narrator", "pv": 40}, "orcs")
    f.cmd({"type": "adjust_hits", "combatant": orc, "amount": -25})
    token = f.http.post(f"/encounters/{f.id}/tokens", json={"combatants": [ana]}).json()["token"]
    # when Ana reads the table, then in Spanish
    player = open_context(PHONE).page()
    player.goto(f"/e/{f.id}#token={token}")
    card = player.locator('article.card[data-name="Orc"]')
    expect(card.locator(".stat.big dd")).to_have_text("badly hurt")
    player.get_by_label("En español").check()
    # then his state is "malherido", in the card and its meter
    expect(card.locator(".stat.big dd")).to_have_text("malherido")
    expect(card.locator(".meter")).to_have_attribute("aria-valuetext", "malherido")
