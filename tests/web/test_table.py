"""The table screen at /e/{id} in a real browser: for each rule book a whole fight with
table dice, started on the home page, its combatants added through the form, then played
only by clicking choices and dice buttons — the GM on a laptop and a player on a phone
(his link minted on the GM's screen), each seeing the other's moves within a second; a void
through the log, previewed and confirmed, restores the hits on the card. Screenshots go to
docs/screens/ (gm-<book>-laptop, -tablet, -phone; player-<book>-phone)."""

from __future__ import annotations

import json
import re
import time
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from tests.web.conftest import LAPTOP, PHONE, TABLET, screenshot

FIGHTS: dict[str, dict[str, Any]] = {
    "novus": {
        "bo": {"inputs": {"hits": "30"}, "json": None},
        # the choices clicked, most wanted first
        "plan": [
            r"for everyone",
            r"declares Basic Melee Attack",
            r"^Resolve",
            r"forgoes",
            r"^End round",
        ],
        "attack": r"^Resolve",
        "roll_line": r"attacks Bo",
        "big": "Hits",
    },
    "wits": {
        "bo": {"inputs": {"wits": "10"}, "json": None},
        "plan": [
            r"everyone",
            r"^Roll .*attack",
            r"attacks .*short sword",
            r"ends the turn",
            r"^End round",
        ],
        "attack": r"^Roll .*attack",
        "roll_line": r"rolls \d+ vs",
        "big": "Current Health",
    },
    "phantasia": {
        "bo": {
            "inputs": {"agi": "6", "pv": "20", "int": "4", "vit": "8", "sue": "4"},
            "json": {
                "level": 2,
                "enemy_type": "martial",
                "weapons": [{"name": "hacha", "code": "AMG", "damage": "1d10"}],
            },
        },
        "plan": [
            r"for everyone",
            r"^Start",
            r"^Roll .*damage",
            r"^Roll .*fumble",
            r"^(?!Reaction).*attacks .* with (espada|hacha)",
            r"^End .*turn",
            r"^End",
        ],
        # once, a choice sent through its small form: Ana moves 3 of her 6 metres
        "form": (r"^Ana: Move up to", {"metres": "3"}, r"metres 3"),
        "attack": r"^(?!Reaction).*attacks .* with",
        "roll_line": r"attacks Bo with",
        "big": "PV",
    },
}

# the face the table rolls, by die: Novus 2d10 high, roll-under d20 and d12 low, a d100
# death check in the middle, damage one under the top (no roll-up)
FACES = {10: 8, 20: 5, 12: 4, 100: 50}


def face_for(sides: int) -> int:
    return FACES.get(sides, max(1, sides - 1))


def roll_until_recorded(page: Any, by_keyboard: bool = False, shot: str | None = None) -> int:
    """Answer each die the screen asks for until the command is recorded (typing the faces
    or clicking them); the faces rolled. `shot`: a screenshot of its last prompt."""
    for rolled in range(40):
        # the page's CSP forbids eval, so no wait_for_function: a selector for either
        page.locator("#dice[open], body:not(.busy)").first.wait_for(timeout=10_000)
        if not page.locator("#dice[open]").count():
            return rolled
        label = page.locator("#dice-label").inner_text()
        assert label.startswith("roll a d"), label
        if shot:  # each prompt: the last one is kept
            screenshot(page, shot)
        faces = page.locator("#dice-faces button.face")
        if faces.count():
            face = face_for(faces.count())
            if by_keyboard:
                page.keyboard.type(str(face))
            else:
                faces.nth(face - 1).click()
        else:  # a big die: typed
            sides = int(page.locator("#dice-face").get_attribute("max"))
            page.locator("#dice-face").fill(str(face_for(sides)))
            page.keyboard.press("Enter")
    raise AssertionError("the screen kept asking for dice")


def last_position(page: Any) -> int:
    return int(page.locator("#log li").last.get_attribute("data-position"))


def big_stat(page: Any, name: str, stat: str) -> str:
    card = page.locator(f'article.card[data-name="{name}"]')
    return card.locator(".stat.big dd").inner_text()


def start_fight(page: Any, book: str) -> str:
    page.goto("/")
    page.get_by_label("Name").fill(f"The ford ({book})")
    page.get_by_label("Rule book").select_option(book)
    page.locator("#dice").select_option("manual")
    page.get_by_role("button", name="Start the fight").click()
    page.wait_for_url(re.compile(r"/e/[^/#]+$"))
    page.locator("#add-form").wait_for()
    return page.url


def add_combatant(page: Any, name: str, side: str, inputs: dict[str, str], stats: Any) -> None:
    page.get_by_label("Name", exact=True).fill(name)
    page.get_by_label("Side").fill(side)
    for stat, value in inputs.items():
        page.locator(f"#stat-{stat}").fill(value)
    if stats is not None:
        page.get_by_label("Other stats (JSON)").fill(json.dumps(stats))
    page.get_by_role("button", name="Add", exact=True).click()
    page.locator(f'article.card[data-name="{name}"]').wait_for()


def mint_link(page: Any, name: str) -> str:
    card = page.locator(f'article.card[data-name="{name}"]')
    card.locator("summary", has_text="GM tools").click()
    card.get_by_role("button", name="Player link").click()
    card.locator("img.qr").wait_for()
    return card.locator("input.link").input_value()


def pick(pages: list[Any], plan: list[str]) -> tuple[Any, int, str] | None:
    """The first choice of the plan on any page (the player's before the GM's)."""
    texts = [p.locator("#choices button.choice").all_text_contents() for p in pages]
    for pattern in plan:
        for page, labels in zip(pages, texts, strict=True):
            for i, label in enumerate(labels):
                if re.search(pattern, label.strip()):
                    return page, i, label
    return None


def by_form(page: Any, label: str, values: dict[str, str], logged: str) -> bool:
    """Send the choice whose label matches through its form, where the page offers it."""
    item = page.locator("#choices li").filter(
        has=page.locator("button.choice", has_text=re.compile(label))
    )
    if not item.count():
        return False
    item = item.first
    item.locator("summary", has_text="options").click()
    for name, value in values.items():
        item.get_by_label(name, exact=True).fill(value)
    item.get_by_role("button", name="Send with these").click()
    roll_until_recorded(page)
    expect(page.locator("#log li").last).to_contain_text(re.compile(logged))
    return True


def in_sync(pages: list[Any], position: int, within_ms: int = 1000) -> None:
    for page in pages:
        page.locator(f'#log li[data-position="{position}"]').wait_for(
            state="attached", timeout=within_ms
        )


def settled(page: Any) -> None:
    """The screen is done with its last command (a click while busy is refused)."""
    page.locator("body:not(.busy)").wait_for(timeout=10_000)


def top_shot(page: Any, name: str) -> None:
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, name)


def fits(page: Any, width: int) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width


@pytest.mark.parametrize("book", ["novus", "wits", "phantasia"])
def test_a_whole_fight_with_table_dice_by_the_gm_and_a_player(open_context: Any, book: str) -> None:
    fight = FIGHTS[book]
    began = time.monotonic()
    gm = open_context(LAPTOP).page()
    url = start_fight(gm, book)
    add_combatant(gm, "Ana", "heroes", {}, None)  # the rule book's example stats
    add_combatant(gm, "Bo", "foes", fight["bo"]["inputs"], fight["bo"]["json"])
    link = mint_link(gm, "Ana")
    assert link.startswith(url + "#token=fl_player_")

    player = open_context(PHONE).page()
    player.goto(link)
    player.locator('article.card[data-name="Bo"]').wait_for()
    assert "token=" not in player.url  # taken out of the address bar, kept in the browser
    assert player.locator("#role").inner_text().startswith("Player")
    assert player.locator("#add-form").is_hidden()
    assert player.locator("button.void").count() == 0
    assert player.locator("#corrections button").count() == 0

    pages = [player, gm]
    before: list[tuple[str, str]] = []  # (label clicked, Bo's big stat before it)
    moves = {"gm": 0, "player": 0}
    shot_taken = False
    form = fight.get("form")
    for step in range(40):
        if form and by_form(player, *form):
            form = None
            in_sync(pages, last_position(player))
            continue
        chosen = pick(pages, fight["plan"])
        assert chosen, f"nothing to click at step {step}"
        page, index, label = chosen
        before.append((label, big_stat(gm, "Bo", fight["big"])))
        button = page.locator("#choices button.choice").nth(index)
        if not button.is_visible():  # in a folded list: unfold it as a person would
            button.locator("xpath=ancestor::details[1]/summary").click()
        by_keyboard = step == 0  # the first move by keyboard alone: Tab to it, Enter, type
        if by_keyboard:
            button.focus()
            page.keyboard.press("Enter")
        else:
            button.click()
        shot = None
        if page is player and not shot_taken:
            shot, shot_taken = f"player-{book}-dice", True
        if not roll_until_recorded(page, by_keyboard, shot) and shot:
            shot_taken = False  # it asked for no die: the next of the player's moves
        assert not page.locator("#choices-status.error").count(), page.locator(
            "#choices-status"
        ).inner_text()
        moves["player" if page is player else "gm"] += 1
        in_sync(pages, last_position(page))  # the other screen shows it within a second
        if step == 3:
            top_shot(gm, f"gm-{book}-laptop")
            top_shot(player, f"player-{book}-phone")
            fits(player, PHONE["width"])
        if gm.locator('article.card[data-name="Bo"] [data-state]').count():
            break  # Bo is down
    assert gm.locator('article.card[data-name="Bo"] [data-state]').count(), "Bo never went down"
    assert player.locator('article.card[data-name="Bo"] [data-state]').count()
    assert moves["gm"] and moves["player"], moves

    # a void button only where a void may be made: not on a combatant joining
    assert not gm.locator("#log li", has_text="Bo joins").locator("button.void").count()
    # void the last roll that hurt Bo: the preview lists what it takes back, then confirm
    expected = next(value for label, value in reversed(before) if re.search(fight["attack"], label))
    line = gm.locator("#log li:not(.voided)").filter(has_text=re.compile(fight["roll_line"])).last
    line.get_by_role("button", name=re.compile("Void event")).click()
    dialog = gm.locator("#confirm")
    dialog.wait_for(state="visible", timeout=5_000)
    assert dialog.locator("#confirm-lines li").count() >= 2  # the roll and what followed
    dialog.get_by_role("button", name="Void these").click()
    expect(gm.locator('article.card[data-name="Bo"] .stat.big dd')).to_have_text(expected)
    in_sync([player], last_position(gm))
    # the GM's Bo: the player reads his state in words, as the GM's card says he does
    seen = gm.locator('article.card[data-name="Bo"] .badge.players-see').inner_text()
    assert big_stat(player, "Bo", fight["big"]) == seen.removeprefix("players see: ")
    assert "/" not in big_stat(player, "Bo", fight["big"])
    assert gm.locator("#log li.voided").count() >= 2
    # undo the last command, then redo it, by the buttons the GM's corrections offer
    settled(gm)
    gm.locator("#corrections button", has_text="Undo").click()
    expect(gm.locator("#corrections button", has_text="Redo")).to_have_count(1)
    expect(gm.locator("#choices-status")).to_contain_text("undoes")
    settled(gm)
    gm.locator("#corrections button", has_text="Redo").click()
    expect(gm.locator("#corrections button", has_text="Redo")).to_have_count(0)
    expect(gm.locator("#choices-status")).to_contain_text("redoes")

    # the GM's adjustments from the card's tools: hits in every book, a status in PHANTÄSIA
    ana = gm.locator('article.card[data-name="Ana"]')
    ana_before = int(big_stat(gm, "Ana", fight["big"]).split("/")[0])
    settled(gm)
    ana.get_by_label("Adjust Ana").select_option(label="adjust hits")
    ana.get_by_label("amount", exact=True).fill("-2")
    ana.get_by_label("reason", exact=True).fill("a fall")
    ana.get_by_role("button", name="Apply").click()
    expect(ana.locator(".stat.big dd")).to_contain_text(f"{ana_before - 2} /")
    if book == "phantasia":
        settled(gm)
        ana.get_by_label("Adjust Ana").select_option(label="apply status")
        ana.get_by_label("status", exact=True).select_option("haste")
        ana.get_by_label("turns", exact=True).fill("3")
        ana.get_by_role("button", name="Apply").click()
        expect(ana.locator(".statuses")).to_contain_text("haste · Rapidez (3 turns)")
    ana.locator("summary", has_text="GM tools").click()  # folded for the screenshots
    for size, name in ((TABLET, "tablet"), (PHONE, "phone")):
        gm.set_viewport_size(size)
        fits(gm, size["width"])
        top_shot(gm, f"gm-{book}-{name}")
    if book == "phantasia":
        gm.get_by_label("En español").check()
        gm.locator("#log li", has_text="Ronda").first.wait_for()
    assert time.monotonic() - began < 60


def test_given_a_500_event_fight_then_the_table_opens_whole_and_says_how_fast(
    open_context: Any,
) -> None:
    watched = open_context(LAPTOP)
    http = httpx.Client(base_url=watched.base, timeout=30)
    created = http.post(
        "/encounters", json={"name": "A long one", "ruleset": "wits", "dice_source": "manual"}
    ).json()
    eid, gm = created["id"], created["gm_token"]
    http.headers["Authorization"] = f"Bearer {gm}"
    stats = {"wits": 12, "move": 12, "health": 400}
    lief = http.post(
        f"/encounters/{eid}/combatants", json={"name": "Lief", "side": "a", "stats": stats}
    ).json()["id"]
    http.post(f"/encounters/{eid}/combatants", json={"name": "Bo", "side": "b", "stats": stats})
    for version in range(4, 501):
        r = http.post(
            f"/encounters/{eid}/commands",
            json={"type": "adjust_hits", "combatant": lief, "amount": -1 if version % 3 else 2},
        )
        assert r.status_code == 200, r.text
    page = watched.page()
    page.goto("/web/favicon.svg")  # the browser up; the timing is the page's own
    page.goto(f"/e/{eid}#token={gm}")
    page.wait_for_selector("body[data-ready=true]", timeout=10_000)
    ready = int(page.evaluate("document.body.dataset.readyAt"))  # ms since navigation
    print(f"500 events: the table screen whole {ready} ms after navigation")
    # how fast is reported, not asserted: speed is measured by make bench, never by a timed
    # assertion (a loaded machine would fail it); 0.15-0.75 s here when this was written
    assert page.locator("#log li").count() == 500
    expect(page.locator('article.card[data-name="Lief"] .stat.big dd')).to_have_text(
        f"{http.get(f'/encounters/{eid}').json()['combatants'][0]['health']} / 400"
    )
