"""The browser's own verifier at /audit (api/web/static/js/audit/, written from
docs/audit-spec.md alone), in a real browser against a real server: fights of each rule book
played over HTTP with server (and seeded) dice, exported as NDJSON and CSV, checked on the
page as they are and tampered with in every way the spec names; the page's report must be
the Python verifier's (POST /audit/verify on the same bytes) key for key, reasons aside, and
the page must never send the file anywhere. canonical.js is checked against Python's
json.dumps; the spec's vectors (docs/audit-vectors/) with their keys.json when they exist."""

from __future__ import annotations

import copy
import csv as csv_module
import hashlib
import io
import json
import re
from pathlib import Path
from typing import Any
from uuid import UUID

import httpx

from domain.dice import derived_face
from infra.app import Fraylog
from infra.settings import Settings
from tests.audit_vectors import server_faces
from tests.builders.novus import novus_stats, target_stats
from tests.builders.phantasia import ORC, PC
from tests.builders.wits import farthan, fighter
from tests.web.conftest import LAPTOP, PHONE, screenshot
from tests.web.test_replay import Fight

VECTORS = Path(__file__).resolve().parents[2] / "docs" / "audit-vectors"
NAME = "Brücke 🎲 «Ä»"
KINDS = {"ndjson": "application/x-ndjson", "csv": "text/csv"}
FINAL = ", ".join(f"body[data-audit={s}]" for s in ("done", "not-export", "error", "no-ed25519"))
HEADER = "position,type,timestamp,actor,cause,command,voided_by,dice,data,hash"


# -- fights ---------------------------------------------------------------------------------


def play(f: Fight, prefer: list[str], steps: int, declare: Any = None) -> None:
    """Play from GET …/choices: each step the first offered type of `prefer` that is
    accepted (server dice fill every roll)."""
    for _ in range(steps):
        answer = f.get("/choices")
        ranked = sorted(
            (o for o in answer["choices"] if o["type"] in prefer),
            key=lambda o: prefer.index(o["type"]),
        )
        for option in ranked:
            body = option["command"]
            if body["type"] == "declare" and declare is not None:
                body = declare(answer["acting"])
            r = f.http.post(f"/encounters/{f.id}/commands", json=body)
            if r.status_code == 200:
                break
        else:
            return


def attack(f: Fight, body: dict[str, Any]) -> list[dict[str, Any]]:
    """A Wits attack rolled at once, or (when its target may defend first) by roll_attack."""
    events = f.cmd({"type": "attack", "weapon": "short sword", **body})["events"]
    if not any(e["type"] == "AttackTestRolled" for e in events):
        events += f.cmd({"type": "roll_attack"})["events"]
    return events


def wits_fight(base: str) -> tuple[Fight, dict[str, int]]:
    """Server dice, a non-ASCII name, moves of 2.5 and 3.0 metres, a mid-fight reveal (a
    second epoch), a voided roll, two rounds, then end_encounter (the last reveal)."""
    f = Fight(base, "wits", NAME, dice="server")
    lief = f.add("Lief", fighter(), "heroes")
    far = f.add("Farthan", farthan(health=500), "foes")  # he survives every roll
    f.cmd({"type": "roll_initiative"})
    attack(f, {"combatant": lief, "target": far})
    f.cmd({"type": "move", "combatant": lief, "distance_m": 2.5})
    first_round = f.cmd({"type": "end_round"})["events"][0]["position"]
    f.cmd({"type": "reveal_dice"})
    out = attack(f, {"combatant": lief, "target": far})
    rolled = next(e["position"] for e in out if e["type"] == "AttackTestRolled")
    f.cmd({"type": "void", "target": rolled, "reason": "the die rolled off the table"})
    f.cmd({"type": "roll_attack"})  # rolled again: the same command, drawn anew
    f.cmd({"type": "move", "combatant": lief, "distance_m": 3.0})
    f.cmd({"type": "end_round"})
    f.cmd({"type": "end_encounter"})
    return f, {"first_round": first_round, "rolled": rolled}


def novus_fight(base: str) -> Fight:
    """Server dice, initiative typed in for Brakka (manual faces beside server ones), a save
    whose first draw was burned by a refusal (attempt 1), the secret revealed, a round
    declared and resolved; not ended: its dice await the next reveal."""
    f = Fight(base, "novus", "Ambush at the ford", dice="server")
    brakka = f.add("Brakka", novus_stats(bonuses={"dex": 2, "spd": 2, "wis": 1}), "heroes")
    goblin = f.add("Goblin", target_stats(def_=18, ar=6, hits=30), "foes")
    f.cmd({"type": "roll_initiative", "dice": {"initiative:Brakka": [7, 9]}})
    save = {"type": "save", "combatant": brakka, "stat": "con"}
    refused = f.http.post(f"/encounters/{f.id}/commands", json={**save, "dice": {"typo": [3]}})
    assert refused.status_code == 422, refused.text  # its server draw is burned all the same
    saved = f.cmd(save)["events"][0]["data"]["rolls"]["save"]
    assert saved["attempt"] == 1
    f.cmd({"type": "reveal_dice"})  # so its faces are re-derived, keyed "N.1/save/k"

    def declare(acting: str) -> dict[str, Any]:
        if acting == brakka:
            actions = [{"kind": "melee_attack", "target": goblin, "weapon": "sword"}]
        else:
            actions = [{"kind": "dodge"}]
        return {"type": "declare", "combatant": acting, "actions": actions}

    play(f, ["declare", "resolve", "end_round"], 8, declare)
    return f


def phantasia_fight(base: str) -> Fight:
    """Server dice, turns played from the choices, ended (revealed)."""
    f = Fight(base, "phantasia", "La cripta de Ñandú", dice="server")
    f.add("Endimion", PC, "héroes")
    f.add("Orco", ORC, "orcos")
    f.cmd({"type": "roll_initiative"})
    play(f, ["roll_damage", "attack_check", "start_turn", "end_turn"], 10)
    f.cmd({"type": "end_encounter"})
    return f


def fork(original: Fight, at: int) -> Fight:
    """A fork of `original` at `at` (its faces up to there inherited), with its own GM."""
    r = original.http.post(f"/encounters/{original.id}/fork", json={"at": at, "name": "Fork ñ"})
    assert r.status_code == 201, r.text
    f = copy.copy(original)
    f.http = httpx.Client(base_url=str(original.http.base_url), timeout=30)
    f.id = r.json()["id"]
    f.gm = r.json()["gm_token"]
    f.http.headers["Authorization"] = f"Bearer {f.gm}"
    return f


def fork_of(original: Fight, at: int) -> Fight:
    """A fork of the Wits fight at `at`, one more attack with the fork's own secret, then
    ended."""
    f = fork(original, at)
    ids = {c["name"]: c["id"] for c in f.get()["combatants"]}
    attack(f, {"combatant": ids["Lief"], "target": ids["Farthan"], "out_of_order": True})
    f.cmd({"type": "end_encounter"})
    return f


def seeded_fight(base: str) -> Fight:
    r = httpx.post(
        f"{base}/encounters",
        json={"name": "Semilla", "ruleset": "wits", "dice_source": "seeded", "seed": "sé 🎲"},
    )
    assert r.status_code == 201, r.text
    f = Fight.__new__(Fight)
    f.http = httpx.Client(base_url=base, timeout=30)
    f.id, f.gm, f.ids = r.json()["id"], r.json()["gm_token"], {}
    f.http.headers["Authorization"] = f"Bearer {f.gm}"
    lief = f.add("Lief", fighter(), "heroes")
    far = f.add("Farthan", farthan(health=500), "foes")  # he survives every roll
    f.cmd({"type": "roll_initiative"})
    attack(f, {"combatant": lief, "target": far})
    f.cmd({"type": "end_round"})
    return f


# -- files ----------------------------------------------------------------------------------


def lines_of(text: str) -> list[str]:
    return [line for line in text.split("\n") if line.strip()]


def ndjson(lines: list[str]) -> str:
    return "".join(f"{line}\n" for line in lines)


def is_checkpoint(line: str) -> bool:
    return line.startswith('{"checkpoint"')


def rehash(lines: list[str]) -> list[str]:
    """Recompute every record's hash (§3) after an edit: a forger's chain."""
    out, previous = [], ""
    for line in lines:
        if is_checkpoint(line):
            out.append(line)
            continue
        record = json.loads(line)
        kept = {k: v for k, v in record.items() if k not in ("hash", "voided_by", "dice")}
        canonical = json.dumps(kept, sort_keys=True, separators=(",", ":"))
        previous = hashlib.sha256((previous + canonical).encode()).hexdigest()
        record["hash"] = previous
        out.append(json.dumps(record, ensure_ascii=False, separators=(",", ":")))
    return out


def edit_record(lines: list[str], position: int, change: Any) -> list[str]:
    out = list(lines)
    record = json.loads(out[position - 1])
    change(record)
    out[position - 1] = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
    return out


def first(lines: list[str], kind: str) -> int:
    return next(k + 1 for k, line in enumerate(lines) if json.loads(line).get("type") == kind)


def server_roll(lines: list[str]) -> int:
    return next(
        k + 1
        for k, line in enumerate(lines)
        if any(
            r.get("source") == "server"
            for r in (json.loads(line).get("data") or {}).get("rolls", {}).values()
        )
    )


def ndjson_variants(text: str) -> dict[str, str]:
    """The intact export and its tampered copies (each named for what was done)."""
    lines = lines_of(text)
    events = [line for line in lines if not is_checkpoint(line)]
    tail = [line for line in lines if is_checkpoint(line)]
    n = len(events)
    rolled = server_roll(events)

    def bump_face(r: dict[str, Any]) -> None:
        roll = next(x for x in r["data"]["rolls"].values() if x["source"] == "server")
        roll["faces"][0] = roll["faces"][0] % roll["sides"][0] + 1

    def bad_secret(r: dict[str, Any]) -> None:
        r["data"]["secret"] = "00" * 32

    v = {
        "intact": text,
        "edited": text.replace('"round":1', '"round":7', 1),
        "swapped": ndjson([*events[:3], events[4], events[3], *events[5:], *tail]),
        "deleted": ndjson(events[:5] + events[6:] + tail),
        "cut": ndjson(events[: n - 3] + tail),
        "renamed": text.replace(NAME, "Brucke 🎲 «Ä»", 1),
        "rewritten-2.50": text.replace('"metres":2.5,', '"metres":2.50,'),
        "rewritten-25e-1": text.replace('"metres":2.5,', '"metres":25e-1,'),
        "rewritten-3.00": text.replace('"metres":3.0,', '"metres":3.00,'),
        "rewritten-3": text.replace('"metres":3.0,', '"metres":3,'),
        "spaced": text.replace('"round":1', '"round" :  1', 1),
        "face-forged": ndjson(rehash(edit_record(events, rolled, bump_face)) + tail),
        "voided_by": ndjson(edit_record(events, 2, lambda r: r.__setitem__("voided_by", n)) + tail),
        "crlf": text.replace("\n", "\r\n"),
        "byte-order-mark": "\ufeff" + text,  # as some editors save it: skipped by both
        "extra-key": ndjson(edit_record(events, 2, lambda r: r.__setitem__("note", "x")) + tail),
        "dice-key": ndjson(edit_record(events, rolled, lambda r: r.__setitem__("dice", {})) + tail),
        "no-voided_by": ndjson(edit_record(events, 2, lambda r: r.pop("voided_by")) + tail),
        "duplicate-key": text.replace(
            '"type":"EncounterCreated"', '"type":"X","type":"EncounterCreated"', 1
        ),
        "blank-lines": text.replace("\n", "\n\n  \n", 3),
        "error-answer": '{"type":"about:blank","title":"Not Found","status":404}\n',
        "empty": "",
        "not-json": text.replace("}\n", "\n", 1),
    }
    reveals = [k + 1 for k, line in enumerate(events) if '"DiceSecretRevealed"' in line]
    if reveals:
        v["secret-forged"] = ndjson(rehash(edit_record(events, reveals[0], bad_secret)) + tail)
    if tail:
        checkpoint = json.loads(tail[0])
        sig = checkpoint["checkpoint"]["signature"]
        flipped = copy.deepcopy(checkpoint)
        flipped["checkpoint"]["signature"] = ("1" if sig[0] != "1" else "2") + sig[1:]
        other = copy.deepcopy(checkpoint)
        other["checkpoint"]["key"] = "ab" * 32
        upper = copy.deepcopy(checkpoint)
        upper["checkpoint"]["signature"] = sig.upper()
        as_float = copy.deepcopy(checkpoint)
        as_float["checkpoint"]["position"] = float(checkpoint["checkpoint"]["position"])
        extra = copy.deepcopy(checkpoint)
        extra["checkpoint"]["note"] = "x"
        v |= {
            "checkpoint-first": ndjson(tail + events),
            "checkpoint-twice": ndjson(events + tail + tail),
            "checkpoint-removed": ndjson(events),
            "checkpoint-signature": ndjson([*events, json.dumps(flipped)]),
            "checkpoint-key": ndjson([*events, json.dumps(other)]),
            "checkpoint-member": ndjson([*events, json.dumps(extra)]),
            "checkpoint-upper": ndjson([*events, json.dumps(upper)]),
            "checkpoint-float": ndjson([*events, json.dumps(as_float)]),
            "checkpoint-spaced": ndjson([*events, json.dumps(checkpoint, indent=None)]),
        }
    return v


def csv_variants(text: str) -> dict[str, str]:
    rows = text.split("\r\n")
    body = [r for r in rows[1:] if r]
    events = [r for r in body if ",Checkpoint," not in r]
    tail = [r for r in body if ",Checkpoint," in r]

    def csv(rs: list[str]) -> str:
        return "\r\n".join([rows[0], *rs]) + "\r\n"

    dice_row = next(k for k, r in enumerate(events) if '""source"":""server""' in r)
    edited_dice = list(events)
    cells = next(csv_module.reader([events[dice_row]]))
    faces = json.loads(cells[7])
    name = next(iter(faces))
    faces[name] = [faces[name][0] + 1, *faces[name][1:]]
    cells[7] = json.dumps(faces)
    out = io.StringIO()
    csv_module.writer(out, lineterminator="").writerow(cells)
    edited_dice[dice_row] = out.getvalue()
    extra_column = list(events)
    extra_column[dice_row] += ',{"x'
    return {
        "intact": text,
        "edited": text.replace('""round"":1', '""round"":7', 1),
        "swapped": csv([events[0], events[2], events[1], *events[3:], *tail]),
        "deleted": csv(events[:4] + events[5:] + tail),
        "cut": csv(events[:-3] + tail),
        "dice-column": csv(edited_dice + tail),
        "extra-column": csv(extra_column + tail),
        "renamed": text.replace(NAME, "Brucke 🎲 «Ä»", 1),
        "lf": text.replace("\r\n", "\n"),
        "byte-order-mark": "\ufeff" + text,
    }


def csv_cells(text: str) -> list[list[str]]:
    """The rows of a CSV export as Python's csv module reads them."""
    return list(csv_module.reader(io.StringIO(text, newline="")))


def csv_of(rows: list[list[str]]) -> str:
    out = io.StringIO(newline="")
    csv_module.writer(out, lineterminator="\r\n").writerows(rows)
    return out.getvalue()


def csv_edit(text: str, row: int, column: str, value: str) -> str:
    """The CSV with one cell changed (`row` 1 = the first after the header)."""
    rows = csv_cells(text)
    rows[row][HEADER.split(",").index(column)] = value
    return csv_of(rows)


def to_csv(lines: list[str]) -> str:
    """NDJSON records (and a checkpoint line) written as fraylog's CSV (§1)."""
    rows = [HEADER.split(",")]
    for line in lines:
        v = json.loads(line)
        if "checkpoint" in v:
            rows.append(["", "Checkpoint", *[""] * 6, json.dumps(v["checkpoint"]), ""])
            continue
        rolls = v["data"].get("rolls") or {} if isinstance(v["data"], dict) else {}
        dice = {name: roll["faces"] for name, roll in rolls.items()}
        cells = {**v, "dice": json.dumps(dice), "data": json.dumps(v["data"])}
        row = ["" if cells[c] is None else str(cells[c]) for c in HEADER.split(",")]
        if "withheld" in v:  # a concealed record: its 11th column (§1)
            row.append(json.dumps(v["withheld"]))
        rows.append(row)
    return csv_of(rows)


def rolled(lines: list[str], source: str = "server") -> int:
    """The position of the first record with a roll of `source`."""
    return next(
        k + 1
        for k, line in enumerate(lines)
        if any(
            r.get("source") == source
            for r in (json.loads(line).get("data") or {}).get("rolls", {}).values()
        )
    )


def first_roll(record: dict[str, Any], source: str = "server") -> dict[str, Any]:
    return next(r for r in record["data"]["rolls"].values() if r["source"] == source)


# -- checking -------------------------------------------------------------------------------


def python_report(base: str, text: str, kind: str) -> dict[str, Any] | None:
    """POST /audit/verify's report, or None when it says the file is not an export."""
    r = httpx.post(
        f"{base}/audit/verify",
        content=text.encode(),
        headers={"Content-Type": KINDS[kind]},
        timeout=30,
    )
    if r.status_code == 422 and r.json().get("rule") == "AUDIT":
        return None
    assert r.status_code == 200, r.text
    return r.json()


def pick(page: Any, text: str, name: str, kind: str) -> None:
    page.evaluate("document.body.dataset.audit = 'stale'")
    page.set_input_files(
        "#file", files=[{"name": name, "mimeType": KINDS[kind], "buffer": text.encode()}]
    )
    page.wait_for_selector(FINAL, state="attached", timeout=20_000)


def page_report(page: Any, text: str, name: str, kind: str) -> dict[str, Any] | None:
    pick(page, text, name, kind)
    if page.evaluate("document.body.dataset.audit") == "not-export":
        return None
    assert page.evaluate("document.body.dataset.audit") == "done", page.inner_text("#verdict")
    return json.loads(page.locator("#report-json").text_content())


def without_reasons(report: dict[str, Any] | None) -> dict[str, Any] | None:
    if report is None:
        return None
    out = copy.deepcopy(report)
    out["chain"].pop("reason", None)
    if out.get("checkpoint"):
        out["checkpoint"].pop("reason", None)
    return out


def agree_all(
    page: Any, base: str, nd_cases: dict[str, str], csv_cases: dict[str, str]
) -> dict[str, Any]:
    """`agree` on each NDJSON and CSV case, by name: the page's reports."""
    got = {
        name: agree(page, base, text, f"{name}.ndjson", "ndjson") for name, text in nd_cases.items()
    }
    got |= {name: agree(page, base, text, f"{name}.csv", "csv") for name, text in csv_cases.items()}
    return got


def agree(page: Any, base: str, text: str, name: str, kind: str) -> dict[str, Any] | None:
    """The page's report equals Python's on the same bytes (reasons aside)."""
    theirs = python_report(base, text, kind)
    mine = page_report(page, text, name, kind)
    if theirs is not None and mine is not None:
        assert list(mine) == ["ok", "chain", "dice", "checkpoint"], mine
        assert list(mine["chain"]) == [
            *("ok", "events", "broken_at", "reason", "redacted", "concealed")
        ]
        if mine["dice"] is not None:
            assert list(mine["dice"]) == [
                *("checked", "manual", "unrevealed", "inherited", "withheld"),
                *("mismatches", "bad_reveals", "ok"),
            ]
        if mine["checkpoint"] is not None:
            assert list(mine["checkpoint"]) == [
                *("status", "ok", "position", "time", "key", "encounter"),
                *("missing", "unsigned", "reason"),
            ]
        if "checkpoint" not in theirs:  # a Python side without checkpoints yet
            assert mine["checkpoint"] in (None, {**mine["checkpoint"], "status": "none"}), name
            mine = {k: v for k, v in mine.items() if k != "checkpoint"}
    assert without_reasons(mine) == without_reasons(theirs), name
    return mine


def watch_requests(page: Any) -> list[tuple[str, str, bytes | None]]:
    seen: list[tuple[str, str, bytes | None]] = []
    page.on("request", lambda r: seen.append((r.method, r.url, r.post_data_buffer)))
    return seen


def assert_nothing_sent(seen: list[tuple[str, str, bytes | None]], files: list[str]) -> None:
    """Only GETs of the page's own files and /audit/keys; no request carried a file."""
    for method, url, data in seen:
        assert method == "GET", (method, url)
        path = httpx.URL(url).path
        assert path in ("/audit", "/audit/keys", "/favicon.ico") or path.startswith("/web/"), url
        assert not data, url
        for text in files:
            assert not text.strip() or text[:200] not in url


def open_audit(page: Any) -> None:
    page.goto("/audit")
    page.wait_for_selector("body[data-ready=true]", timeout=10_000)


# -- tests ----------------------------------------------------------------------------------


def test_given_exports_of_each_rule_book_when_checked_on_the_page_then_the_report_is_pythons(
    open_context: Any,
) -> None:
    watched = open_context(LAPTOP)
    page = watched.page()
    seen = watch_requests(page)
    base = watched.base
    wits, at = wits_fight(base)
    fights = {
        "wits": wits,
        "novus": novus_fight(base),
        "phantasia": phantasia_fight(base),
        "fork": fork_of(wits, at["first_round"]),
        "seeded": seeded_fight(base),
    }
    # a fork of the Novus fight whole: its typed-in and its server faces are all copied
    fights["novus-fork"] = fork(fights["novus"], fights["novus"].get()["version"])
    open_audit(page)
    sent: list[str] = []
    reports = {}
    for name, fight in fights.items():
        for kind in KINDS:
            text = fight.get("/events", format=kind)
            sent.append(text)
            reports[name, kind] = agree(page, base, text, f"{name}.{kind}", kind)
            assert reports[name, kind]["chain"]["ok"], (name, kind)
            c = reports[name, kind]["checkpoint"]  # it names its encounter (§6.1)
            assert c["encounter"] == (None if c["position"] is None else fight.id), name
    dice = {name: reports[name, "ndjson"]["dice"] for name in fights}
    assert dice["wits"]["checked"] > 0 and dice["wits"]["ok"]
    assert dice["novus"]["manual"] == 2 and dice["novus"]["unrevealed"] > 0
    assert dice["novus"]["checked"] > 0  # the save drawn at attempt 1, revealed
    assert dice["phantasia"]["checked"] > 0 and dice["phantasia"]["unrevealed"] == 0
    assert dice["fork"]["inherited"] > 0 and dice["fork"]["checked"] > 0
    # typed-in faces stay manual in a fork; the copied server faces are inherited
    assert dice["novus-fork"]["manual"] == 2 and dice["novus-fork"]["checked"] == 0
    copied = dice["novus"]["unrevealed"] + dice["novus"]["checked"]
    assert dice["novus-fork"]["inherited"] == copied
    assert dice["seeded"]["checked"] > 0 and dice["seeded"]["unrevealed"] == 0
    # the table lists every server roll of the Wits fight, each face ✓
    page_report(page, sent[0], "wits.ndjson", "ndjson")
    rows = page.locator("#rolls tbody tr")
    assert rows.count() > 0
    assert page.locator("#rolls tbody tr.mismatch").count() == 0
    assert "✓" in rows.first.inner_text()
    assert page.locator("#verdict").get_attribute("aria-live") == "polite"
    assert page.locator("#verdict .verdict-head").inner_text().startswith("✓")
    assert_nothing_sent(seen, sent)


def test_given_tampered_exports_when_checked_on_the_page_then_it_agrees_with_python(
    open_context: Any,
) -> None:
    watched = open_context(LAPTOP)
    page = watched.page()
    seen = watch_requests(page)
    base = watched.base
    fight, _ = wits_fight(base)
    open_audit(page)
    sent: list[str] = []
    verdicts = {}
    nd = fight.get("/events", format="ndjson")
    for name, text in ndjson_variants(nd).items():
        sent.append(text)
        verdicts[name] = agree(page, base, text, f"{name}.ndjson", "ndjson")
    for name, text in csv_variants(fight.get("/events", format="csv")).items():
        sent.append(text)
        verdicts[f"csv-{name}"] = agree(page, base, text, f"{name}.csv", "csv")

    for same in ("intact", "rewritten-2.50", "rewritten-25e-1", "rewritten-3.00", "spaced"):
        assert verdicts[same]["chain"]["ok"], same
    for same in ("byte-order-mark", "csv-byte-order-mark"):
        assert verdicts[same]["ok"] and verdicts[same]["checkpoint"]["status"] == "complete"
    for broken in ("edited", "swapped", "deleted", "renamed", "rewritten-3", "voided_by"):
        assert not verdicts[broken]["chain"]["ok"], broken
        assert verdicts[broken]["dice"] is None and verdicts[broken]["checkpoint"] is None
    for broken in ("csv-edited", "csv-swapped", "csv-deleted", "csv-dice-column"):
        assert not verdicts[broken]["chain"]["ok"], broken
    assert verdicts["face-forged"]["dice"]["mismatches"]
    assert verdicts["secret-forged"]["dice"]["bad_reveals"]
    status = {k: v["checkpoint"]["status"] for k, v in verdicts.items() if v and v["checkpoint"]}
    assert status["intact"] == "complete" and status["csv-intact"] == "complete"
    assert status["cut"] == "truncated" and status["csv-cut"] == "truncated"
    assert status["face-forged"] == "mismatch"
    assert status["checkpoint-removed"] == "none"
    assert status["checkpoint-first"] == status["checkpoint-twice"] == "malformed"
    assert status["checkpoint-member"] == "malformed"
    assert status["checkpoint-signature"] == "bad_signature"
    assert status["checkpoint-key"] == "unknown_key"
    assert verdicts["empty"] is None and verdicts["error-answer"] is None
    assert verdicts["not-json"] is None
    assert_nothing_sent(seen, sent)


def test_given_an_intact_and_a_tampered_export_then_the_verdict_reads_plainly_on_each_screen(
    open_context: Any,
) -> None:
    base_ctx = open_context(LAPTOP)
    fight, _ = wits_fight(base_ctx.base)
    nd = fight.get("/events", format="ndjson")
    tampered = ndjson_variants(nd)
    for size, viewport in (("laptop", LAPTOP), ("phone", PHONE)):
        page = (base_ctx if size == "laptop" else open_context(viewport)).page()
        open_audit(page)
        page_report(page, nd, "brucke.ndjson", "ndjson")
        head = page.locator("#verdict .verdict-head").inner_text()
        assert head.startswith("✓") and "Intact" in head
        screenshot(page, f"audit-intact-{size}")
        report = page_report(page, tampered["edited"], "brucke.ndjson", "ndjson")
        head = page.locator("#verdict .verdict-head").inner_text()
        assert f"broken at position {report['chain']['broken_at']}" in head
        screenshot(page, f"audit-broken-{size}")
        page_report(page, tampered["face-forged"], "brucke.ndjson", "ndjson")
        assert page.locator("#rolls tbody tr.mismatch").count() == 1
        assert "do not match" in page.locator("#dice-summary").inner_text()
        page.locator("#rolls tbody tr.mismatch").scroll_into_view_if_needed()
        screenshot(page, f"audit-dice-{size}")
        # nothing sideways on a phone but the roll table's own scroll box
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= viewport["width"], width


def test_given_a_file_dropped_on_the_page_then_it_is_checked_there(open_context: Any) -> None:
    watched = open_context(LAPTOP)
    page = watched.page()
    seen = watch_requests(page)
    fight = seeded_fight(watched.base)
    text = fight.get("/events", format="ndjson")
    open_audit(page)
    page.evaluate("document.body.dataset.audit = 'stale'")
    dropped = page.evaluate_handle(
        "(text) => { const t = new DataTransfer();"
        " t.items.add(new File([text], 'semilla.ndjson')); return t; }",
        text,
    )
    page.dispatch_event("#drop", "drop", {"dataTransfer": dropped})
    page.wait_for_selector(FINAL, state="attached")
    report = json.loads(page.locator("#report-json").text_content())
    assert without_reasons(report) == without_reasons(python_report(watched.base, text, "ndjson"))
    assert report["dice"]["checked"] > 0
    assert "seeded" in page.locator("#rolls tbody").inner_text()
    assert_nothing_sent(seen, [text])


def test_given_no_web_crypto_then_the_page_says_to_use_https_or_fraylog_verify(
    open_context: Any,
) -> None:
    watched = open_context(PHONE)
    watched.context.add_init_script(
        "Object.defineProperty(window, 'isSecureContext', {get: () => false});"
        "Object.defineProperty(Crypto.prototype, 'subtle', {get: () => undefined});"
    )
    page = watched.page()
    open_audit(page)
    notice = page.locator("#insecure")
    assert notice.is_visible()
    assert "https" in notice.inner_text() and "fraylog verify FILE" in notice.inner_text()
    assert "POST /audit/verify" in notice.inner_text()
    assert page.locator("#file").is_disabled()
    screenshot(page, "audit-insecure-phone")


CANONICAL = [
    '"\\u00c4ndern 🎲 Ä \\u0001\\u001f \\" \\\\ / \\b\\f\\n\\r\\t \x7f \\ud83c\\udfb2 \\ud800"',
    "[3.0, 2.5, 1e-05, 1e+16, 0.0001, 1234567890123456.0, 1e16, 1.5e16, 1e100, 5e-324]",
    "[1.7976931348623157e308, -0.0, 0.1, 123456789.123, 1e22, 9007199254740993.0, 1E5]",
    "[3.00, 25e-1, -2.5e-7, 0.00001, 0.001, 1e400, -1e400, 100.0, 12345678901234567890.0]",
    "[123456789012345678901234567890, -0, -12, 0, 9007199254740993, -98765432109876543210]",
    '{"b": 1, "a": 2, "é": 3, "\\uffff": 4, "🎲": 5, "Z": 6, "": 7, "aa": 8, "a\\u0000": 9}',
    '{"a": 1, "a": 2, "n": {"z": [true, false, null], "y": {"x": {}}}, "l": []}',
    '{"position": 3, "data": {"metres": 2.5, "name": "Brücke", "rolls": {}}, "hash": "x"}',
]


def test_given_json_texts_then_canonical_js_writes_what_pythons_json_dumps_writes(
    open_context: Any,
) -> None:
    page = open_context(LAPTOP).page()
    open_audit(page)
    got = page.evaluate(
        """async (texts) => {
            const m = await import('/web/js/audit/canonical.js');
            return texts.map((t) => m.canonical(m.parse(t)));
        }""",
        CANONICAL,
    )
    want = [json.dumps(json.loads(t), sort_keys=True, separators=(",", ":")) for t in CANONICAL]
    assert got == want
    floats = [3.0, 2.5, 1e-05, 1e16, 0.0001, 1234567890123456.0, 1.5e16, 5e-324, 0.1, 1 / 3]
    shown = page.evaluate(
        "async (xs) => { const m = await import('/web/js/audit/canonical.js');"
        " return xs.map(m.pyFloat); }",
        floats,
    )
    assert shown == [repr(x) for x in floats]
    # not JSON as Python reads it: a control character in a string, a leading zero, extra data
    refused = page.evaluate(
        """async (texts) => {
            const m = await import('/web/js/audit/canonical.js');
            return texts.map((t) => { try { m.parse(t); return false; } catch { return true; } });
        }""",
        ['"a\tb"', "007", "[1] 2", "{'a': 1}", "[1,]"],
    )
    assert refused == [True] * 5


SPEC = VECTORS.parent / "audit-spec.md"


def spec_verdicts() -> dict[str, tuple[bool, int | None, str | None]]:
    """§10.5's table: file → (ok, the chain's break, the checkpoint's status and range)."""
    out = {}
    for row in re.findall(
        r"^\| \[`([^`]+)`\]\([^)]*\) \| [^|]+ \| (yes|no) \| ([^|]+) \| ([^|]+) \|$",
        SPEC.read_text(encoding="utf-8"),
        re.M,
    ):
        name, ok, broken, checkpoint = (x.strip() for x in row)
        out[name] = (
            ok == "yes",
            None if broken == "—" else int(broken),
            None if checkpoint == "—" else checkpoint,
        )
    return out


def described(report: dict[str, Any]) -> tuple[bool, int | None, str | None]:
    c = report["checkpoint"]
    status = None
    if c is not None:
        status = c["status"]
        if c["missing"] or c["unsigned"]:
            which = "missing" if c["missing"] else "unsigned"
            status += f" ({which} {c[which]})"
        if report["chain"]["redacted"]:
            status += f"; {report['chain']['redacted']} records withheld"
        if report["chain"]["concealed"]:
            status += f"; {report['chain']['concealed']} records concealed"
    return report["ok"], report["chain"]["broken_at"], status


def test_given_the_specs_vectors_then_the_page_gives_the_listed_verdicts_and_values(
    open_context: Any,
) -> None:
    watched = open_context(LAPTOP)
    page = watched.page()
    seen = watch_requests(page)
    base = watched.base
    open_audit(page)
    files = sorted(p for p in VECTORS.iterdir() if p.suffix in (".ndjson", ".csv"))
    texts = {p.name: p.read_text(encoding="utf-8") for p in files}
    kind = {name: "csv" if name.endswith(".csv") else "ndjson" for name in texts}

    # with this server's keys (the vector key is none of them): the page is POST /audit/verify
    for name, text in texts.items():
        agree(page, base, text, name, kind[name])

    # with keys.json: the verdicts §10.5 lists, every file of the folder listed
    page.locator("#keys-box summary").click()
    page.set_input_files("#keys-file", str(VECTORS / "keys.json"))
    page.wait_for_selector("body[data-keys=file]", state="attached")
    listed = spec_verdicts()
    assert sorted(listed) == sorted(texts)
    for name, text in texts.items():
        report = page_report(page, text, name, kind[name])
        assert described(report) == listed[name], name
    page_report(page, texts["truncated.ndjson"], "truncated.ndjson", "ndjson")
    assert "TRUNCATED: positions 15–16 missing" in page.inner_text("#verdict")
    screenshot(page, "audit-truncated-laptop")

    # §10.1's canonical forms and §10.3's faces, each HMAC at counter 0 too
    spec = SPEC.read_text(encoding="utf-8")
    part = spec[spec.index("### 10.1") : spec.index("### 10.2")]
    pairs = [b.split("\n") for b in re.findall(r"```\n(.*?)\n```", part, re.S)]
    got = page.evaluate(
        """async (texts) => {
            const m = await import('/web/js/audit/canonical.js');
            return texts.map((t) => m.canonical(m.parse(t)));
        }""",
        [p[0] for p in pairs],
    )
    assert got == [p[1] for p in pairs]
    secret = re.search(r"The secret revealed at position \d+ is `([0-9a-f]{64})`", spec)[1]
    faces = re.findall(
        r"^\| \d+ \| [^|]+ \| \d+ \| `([^`]+)` \| (\d+) \| `([0-9a-f]{64})` \| (\d+) \|$",
        spec,
        re.M,
    )
    assert faces
    derived = page.evaluate(
        """async ([secret, rows]) => {
            const v = await import('/web/js/audit/verify.js');
            const raw = v.unhex(secret);
            const key = await crypto.subtle.importKey(
                'raw', raw, {name: 'HMAC', hash: 'SHA-256'}, false, ['sign']);
            const out = [];
            for (const [k, sides] of rows) {
                const mac = await crypto.subtle.sign(
                    'HMAC', key, new TextEncoder().encode(k + '#0'));
                out.push([v.hex(mac), await v.deriveFace(raw, k, Number(sides))]);
            }
            return out;
        }""",
        [secret, [[k, sides] for k, sides, _, _ in faces]],
    )
    assert derived == [[mac, int(face)] for _, _, mac, face in faces]
    assert_nothing_sent(seen, list(texts.values()))


# -- the revised rules of docs/audit-spec.md (§1 reading, §3 well-formed, §5.3, §6) ----------

LINE_BREAKS = "Zeile\u2028Absatz\u2029Nächste\u0085Ende"  # ordinary characters (§1)
# the server refuses U+0085 (a C1 control) in what it is sent (docs/api.md): a name that holds
# it is an older record's, written to the store by the library, as a store may hold one
SENT_LINE_BREAKS = LINE_BREAKS.replace("\u0085", " ")


def test_given_the_rules_of_reading_an_export_then_the_page_reads_it_as_python_does(
    open_context: Any, tmp_path: Path
) -> None:
    """§1: CSV exactly when the text starts with `position,`; lines end only at \\n (U+2028,
    U+2029 and U+0085 are characters of a name); blank = spaces, tabs and CR only; the CSV
    header exactly, integers strictly, empty data and dice columns as {}, a checkpoint row
    only with an empty position, a checkpoint that is null malformed."""
    watched = open_context(LAPTOP)
    page = watched.page()
    seen = watch_requests(page)
    base = watched.base
    f = Fight(base, "wits", SENT_LINE_BREAKS, dice="server")
    with Fraylog(Settings(sqlite_path=str(tmp_path / "web.db"))) as store:  # the server's file
        lief, _ = store.add_combatant(UUID(f.id), f"Lief{LINE_BREAKS}", "heroes", fighter())
    far = f.add("Farthan\u2028der Zweite", farthan(health=500), "foes")
    f.cmd({"type": "roll_initiative"})
    attack(f, {"combatant": lief, "target": far})
    f.cmd({"type": "end_encounter"})
    nd = f.get("/events", format="ndjson")
    cs = f.get("/events", format="csv")
    assert "\u2028" in nd and "\u2028" in cs  # written as they are: not line breaks
    assert "\u0085" in nd and "\u0085" in cs
    lines = lines_of(nd)
    events = [line for line in lines if not is_checkpoint(line)]
    tail = [line for line in lines if is_checkpoint(line)]
    assert tail
    n = len(events)
    dice_row = rolled(events)
    cells = csv_cells(cs)
    assert cells[0] == HEADER.split(",") and cells[-1][1] == "Checkpoint"
    last_event = len(cells) - 2  # the row of the last record

    nd_cases = {
        "line-breaks": nd,
        "line-breaks-crlf": nd.replace("\n", "\r\n"),
        "blank-tabs-cr": nd.replace("\n", "\n \t\r\n", 2),
        # U+00A0 (or U+2028) alone on a line is no blank line: not JSON, not an export
        "blank-nbsp": nd.replace("\n", "\n\u00a0\n", 1),
        "blank-u2028": nd.replace("\n", "\n\u2028\n", 1),
        "not-an-object": ndjson([*events, "[]", *tail]),
        "checkpoint-null": ndjson([*events, '{"checkpoint":null}']),
        "checkpoint-list": ndjson([*events, '{"checkpoint":[1]}']),
        "huge-integer": nd.replace('"command":1,', f'"command":{"1" * 4301},', 1),
        "big-integer": nd.replace('"command":1,', f'"command":{"1" * 4300},', 1),
        "csv-header-blank-line-first": "\r\n" + cs,  # not `position,`: NDJSON, and not JSON
    }
    csv_cases = {
        "csv-line-breaks": cs,
        "csv-wrong-header": cs.replace(HEADER, HEADER.replace(",actor,", ",who,"), 1),
        "csv-header-eleventh": cs.replace(HEADER, HEADER + ",note", 1),
        "csv-header-nine": cs.replace(HEADER, HEADER.removesuffix(",hash"), 1),
        "csv-plus-5": csv_edit(cs, 5, "position", "+5"),
        "csv-underscore": csv_edit(cs, 5, "position", "5_0"),
        "csv-spaced-int": csv_edit(cs, 5, "position", " 5"),
        "csv-decimal-int": csv_edit(cs, 5, "command", "5.0"),
        "csv-arabic-digit": csv_edit(cs, 5, "position", "\u0665"),
        "csv-minus-cause": csv_edit(cs, 5, "cause", "-1"),  # an integer: ill-formed, no more
        "csv-leading-zero": csv_edit(cs, 5, "position", "005"),  # 5: intact
        "csv-empty-dice": csv_edit(cs, dice_row, "dice", ""),
        "csv-checkpoint-with-position": csv_edit(cs, last_event, "type", "Checkpoint"),
        "csv-checkpoint-columns": csv_edit(cs, len(cells) - 1, "actor", "gm"),
        "csv-checkpoint-null": csv_edit(cs, len(cells) - 1, "data", "null"),
        "csv-checkpoint-not-json": csv_edit(cs, len(cells) - 1, "data", "{"),
        "csv-checkpoint-empty": csv_edit(cs, len(cells) - 1, "data", ""),
        "csv-empty-row": cs.replace("\r\n", "\r\n\r\n", 3),
        "csv-short-row": cs.replace(cs.split("\r\n")[2], ",".join(cells[2][:4]), 1),
        "csv-not-json-data": csv_edit(cs, 2, "data", "{x"),
    }
    open_audit(page)
    got = agree_all(page, base, nd_cases, csv_cases)

    # what the spec says of each, whatever Python says
    for name in ("line-breaks", "line-breaks-crlf", "blank-tabs-cr", "csv-line-breaks"):
        assert got[name]["ok"] and got[name]["checkpoint"]["status"] == "complete", name
        assert got[name]["chain"]["events"] == n
        assert got[name]["checkpoint"]["encounter"] == f.id
    assert got["csv-checkpoint-columns"]["checkpoint"]["status"] == "complete"
    assert got["big-integer"]["chain"]["broken_at"] == 1  # read, and the hash differs
    for name in (
        *("blank-nbsp", "blank-u2028", "not-an-object", "huge-integer"),
        *("csv-header-blank-line-first", "csv-wrong-header", "csv-header-eleventh"),
        *("csv-header-nine", "csv-plus-5", "csv-underscore", "csv-spaced-int"),
        *("csv-decimal-int", "csv-arabic-digit", "csv-checkpoint-not-json"),
        *("csv-checkpoint-empty", "csv-not-json-data"),
    ):
        assert got[name] is None, name
    for name in ("checkpoint-null", "checkpoint-list", "csv-checkpoint-null"):
        assert got[name]["checkpoint"]["status"] == "malformed", name
        assert got[name]["checkpoint"]["encounter"] is None
    assert got["csv-leading-zero"]["ok"]
    assert got["csv-empty-row"]["ok"]
    assert got["csv-minus-cause"]["chain"]["broken_at"] == 5
    assert "well-formed" in got["csv-minus-cause"]["chain"]["reason"]
    assert got["csv-empty-dice"]["chain"] == {
        "ok": False,
        "events": n,
        "broken_at": dice_row,
        "reason": "the dice column differs from the event's rolls",
        "redacted": 0,
        "concealed": 0,
    }
    assert got["csv-checkpoint-with-position"]["chain"]["broken_at"] == n  # a record
    assert got["csv-short-row"]["chain"]["broken_at"] == 2  # no command: ill-formed
    # the page names the encounter of a complete file, complete as of the checkpoint's time
    page_report(page, nd, "line-breaks.ndjson", "ndjson")
    assert f.id in page.locator("#checkpoint-detail").inner_text()
    assert "complete as of" in page.locator("#verdict").inner_text().lower()
    assert_nothing_sent(seen, [*nd_cases.values(), *csv_cases.values()])


def a_wrong_secret(records: list[dict[str, Any]]) -> str:
    """A secret (hex) under which at least one server face of `records` derives otherwise:
    an epoch may hold a single d20, which any other secret matches once in 20."""
    faces = list(server_faces(records))
    for byte in range(1, 256):
        secret = bytes([byte]) * 32
        if any(derived_face(secret, key, sides) != face for *_, key, sides, face in faces):
            return secret.hex()
    raise AssertionError("every secret derives these faces alike")


def forgeries(lines: list[str]) -> dict[str, list[str]]:
    """Rechained copies of a Wits fight's NDJSON (every hash recomputed, the checkpoint
    dropped), each changed so that a record is not well-formed (§3) or the dice read
    otherwise (§5.3)."""
    events = [line for line in lines if not is_checkpoint(line)]
    n = len(events)
    at = rolled(events)
    reveals = [k + 1 for k, line in enumerate(events) if '"DiceSecretRevealed"' in line]
    voided = first(events, "RollVoided")

    def roll(change: Any) -> Any:
        return lambda r: change(first_roll(r))

    def data(change: Any) -> Any:
        return lambda r: change(r["data"])

    def forged(position: int, change: Any) -> list[str]:
        return rehash(edit_record(events, position, change))

    def appended(*records: dict[str, Any]) -> list[str]:
        out = list(events)
        for k, record in enumerate(records):
            out.append(json.dumps({**record, "position": n + 1 + k, "command": n + 1 + k}))
        return rehash(out)

    last = json.loads(events[reveals[-1] - 1])
    assert last["data"]["next_commitment"] is None  # the end's reveal: no commitment after it
    commit = {**last, "type": "DiceCommitted", "data": {"commitment": last["data"]["commitment"]}}
    epoch0 = json.loads(events[reveals[0] - 1])
    wrong0 = copy.deepcopy(epoch0)
    wrong = a_wrong_secret([json.loads(line) for line in events[: reveals[0] - 1]])
    wrong0["data"] |= {"secret": wrong, "next_commitment": None}
    return {
        "sides-2^33": forged(at, roll(lambda x: x["sides"].__setitem__(0, 2**33))),
        "sides-2^32": forged(at, roll(lambda x: x["sides"].__setitem__(0, 2**32))),
        "sides-0": forged(at, roll(lambda x: x["sides"].__setitem__(0, 0))),
        "sides-true": forged(at, roll(lambda x: x["sides"].__setitem__(0, True))),
        "sides-double": forged(at, roll(lambda x: x["sides"].__setitem__(0, 6.0))),
        "sides-short": forged(at, roll(lambda x: x["sides"].append(6))),
        "face-double": forged(at, roll(lambda x: x["faces"].__setitem__(0, 1.0))),
        "attempt-null": forged(at, roll(lambda x: x.__setitem__("attempt", None))),
        "attempt-minus": forged(at, roll(lambda x: x.__setitem__("attempt", -1))),
        "source-null": forged(at, roll(lambda x: x.__setitem__("source", None))),
        "rolls-list": forged(at, data(lambda d: d.__setitem__("rolls", []))),
        "secret-not-hex": forged(reveals[-1], data(lambda d: d.__setitem__("secret", "g" * 64))),
        "secret-upper": forged(reveals[-1], data(lambda d: d.update(secret=d["secret"].upper()))),
        "epoch-null": forged(reveals[-1], data(lambda d: d.__setitem__("epoch", None))),
        "next-not-hex": forged(reveals[0], data(lambda d: d.update(next_commitment="x"))),
        "cascade-missing": forged(voided, data(lambda d: d.pop("cascade"))),
        "cascade-strings": forged(voided, data(lambda d: d.update(cascade=["1"]))),
        "data-list": forged(2, lambda r: r.__setitem__("data", [])),
        "command-0": forged(2, lambda r: r.__setitem__("command", 0)),
        "command-true": forged(2, lambda r: r.__setitem__("command", True)),
        "cause-0": forged(2, lambda r: r.__setitem__("cause", 0)),
        "actor-null": forged(2, lambda r: r.__setitem__("actor", None)),
        "seed-number": forged(1, data(lambda d: d.__setitem__("seed", 7))),
        "commitment-upper": forged(1, data(lambda d: d.update(dice_commitment="A" * 64))),
        "forked-at-null": forged(1, data(lambda d: d.update(forked_from={"at": None}))),
        "position-true": forged(2, lambda r: r.__setitem__("position", True)),
        "position-double": forged(2, lambda r: r.__setitem__("position", 2.0)),
        "position-string": forged(2, lambda r: r.__setitem__("position", "2")),
        "position-null": forged(2, lambda r: r.__setitem__("position", None)),
        # §5.3: after a reveal the commitment in force is its next_commitment (here none)
        "reveal-repeated": appended(last),
        "reveal-repeated-after-commit": appended(commit, last),
        # a later reveal of epoch 0 replaces its secret: every face of epoch 0 re-derived
        "reveal-epoch-0-again": appended(wrong0),
        # not the first record: says nothing of the commitment in force
        "encounter-created-later": appended(json.loads(events[0])),
    }


def test_given_rechained_forgeries_then_ill_formed_records_break_the_chain_as_in_python(
    open_context: Any,
) -> None:
    """§3: a record that is not well-formed breaks the chain even with every hash
    recomputed (so no forged `sides` reaches the derivation); the position must be the
    integer; §5.3: the commitment in force after a reveal, a repeated reveal, a seed of ""."""
    watched = open_context(LAPTOP)
    page = watched.page()
    seen = watch_requests(page)
    base = watched.base
    fight, _ = wits_fight(base)
    lines = lines_of(fight.get("/events", format="ndjson"))
    events = [line for line in lines if not is_checkpoint(line)]
    n = len(events)
    at = rolled(events)
    cases = {name: ndjson(forged) for name, forged in forgeries(lines).items()}
    seeded = lines_of(seeded_fight(base).get("/events", format="ndjson"))
    seeded_events = [line for line in seeded if not is_checkpoint(line)]
    no_seed = edit_record(seeded_events, 1, lambda r: r["data"].__setitem__("seed", ""))
    null_seed = edit_record(seeded_events, 1, lambda r: r["data"].__setitem__("seed", None))
    cases |= {
        "seeded": ndjson(rehash(seeded_events)),
        "seed-empty": ndjson(rehash(no_seed)),
        "seed-null": ndjson(rehash(null_seed)),
    }
    open_audit(page)
    got = {}
    for name, text in cases.items():
        got[name] = agree(page, base, text, f"{name}.ndjson", "ndjson")
    # the CSV twins of a few: the same reading
    for name in ("sides-2^33", "attempt-null", "data-list", "reveal-repeated", "seed-empty"):
        text = to_csv(lines_of(cases[name]))
        got[f"csv-{name}"] = agree(page, base, text, f"{name}.csv", "csv")
        assert without_reasons(got[f"csv-{name}"]) == without_reasons(got[name]), name

    reveals = [k + 1 for k, line in enumerate(events) if '"DiceSecretRevealed"' in line]
    voided = first(events, "RollVoided")
    ill = {
        **dict.fromkeys(("sides-2^33", "sides-0", "sides-true", "sides-double", "sides-short"), at),
        **dict.fromkeys(("face-double", "attempt-null", "attempt-minus", "source-null"), at),
        "rolls-list": at,
        **dict.fromkeys(("secret-not-hex", "secret-upper", "epoch-null"), reveals[-1]),
        "next-not-hex": reveals[0],
        **dict.fromkeys(("cascade-missing", "cascade-strings"), voided),
        **dict.fromkeys(("data-list", "command-0", "command-true", "cause-0", "actor-null"), 2),
        **dict.fromkeys(("seed-number", "commitment-upper", "forked-at-null"), 1),
    }
    for name, position in ill.items():
        chain = got[name]["chain"]
        assert not chain["ok"] and chain["broken_at"] == position, (name, chain)
        assert chain["events"] == position
        assert chain["reason"].startswith("not a well-formed record"), (name, chain)
        assert got[name]["dice"] is None and got[name]["checkpoint"] is None
    # broken_at: the position when it is an integer, else the ordinal (§3: "its ordinal
    # count when it has none"; a boolean, a double, a string or null is no position)
    for name in ("position-true", "position-double", "position-string", "position-null"):
        chain = got[name]["chain"]
        assert not chain["ok"] and chain["events"] == 2, (name, chain)
        assert chain["reason"] == "expected position 2", (name, chain)
        assert chain["broken_at"] == 2 and chain["broken_at"] is not True, (name, chain)
    # a side of 2^32 is well-formed: derived (at counter 0), so it differs, and no more
    assert got["sides-2^32"]["chain"]["ok"]
    assert got["sides-2^32"]["dice"]["mismatches"][0]["position"] == at
    # the same reveal again: bad (no commitment in force after the first); after a
    # DiceCommitted of its commitment, good
    assert got["reveal-repeated"]["dice"]["bad_reveals"] == [n + 1]
    assert got["reveal-repeated-after-commit"]["dice"]["bad_reveals"] == []
    assert got["reveal-repeated-after-commit"]["dice"]["ok"]
    # a later reveal of epoch 0 replaces its secret: bad, and epoch 0's faces all differ
    dice = got["reveal-epoch-0-again"]["dice"]
    assert dice["bad_reveals"] == [n + 1]
    assert dice["mismatches"]  # (a face may equal the wrong secret's by chance, not all)
    assert all(m["position"] < reveals[0] for m in dice["mismatches"])
    assert got["encounter-created-later"]["chain"]["ok"]
    # no seed ("" as null): seeded faces await a reveal that never comes
    assert got["seeded"]["dice"]["checked"] > 0 and got["seeded"]["dice"]["unrevealed"] == 0
    for name in ("seed-empty", "seed-null"):
        dice = got[name]["dice"]
        assert dice["checked"] == 0 and dice["unrevealed"] == got["seeded"]["dice"]["checked"]
        assert dice["ok"]
    assert_nothing_sent(seen, list(cases.values()))


def test_given_a_browser_without_ed25519_then_the_page_says_so_and_gives_no_signature_verdict(
    open_context: Any,
) -> None:
    """Web Crypto with SHA-256 and HMAC but no Ed25519 (importKey refuses it): the checkpoint
    is not called bad_signature; the page says it cannot check signatures here and points to
    fraylog verify FILE and POST /audit/verify. A file without a checkpoint is checked whole."""
    watched = open_context(PHONE)
    watched.context.add_init_script(
        """(() => {
            const original = SubtleCrypto.prototype.importKey;
            SubtleCrypto.prototype.importKey = function (format, data, algorithm, ...rest) {
                const name = typeof algorithm === 'string' ? algorithm : algorithm?.name;
                if (String(name).toLowerCase() === 'ed25519') {
                    return Promise.reject(
                        new DOMException('Unrecognized name.', 'NotSupportedError'));
                }
                return original.call(this, format, data, algorithm, ...rest);
            };
        })();"""
    )
    page = watched.page()
    base = watched.base
    fight, _ = wits_fight(base)
    nd = fight.get("/events", format="ndjson")
    open_audit(page)
    for text, kind in ((nd, "ndjson"), (fight.get("/events", format="csv"), "csv")):
        pick(page, text, f"wits.{kind}", kind)
        assert page.evaluate("document.body.dataset.audit") == "no-ed25519"
        notice = page.locator("#no-ed25519")
        assert notice.is_visible()
        said = notice.inner_text() + page.locator("#verdict").inner_text()
        assert "cannot check signatures" in said
        assert "fraylog verify FILE" in said and "POST /audit/verify" in said
        assert "bad_signature" not in page.content() and "does not verify" not in said
        assert page.locator("#report-json").text_content() == ""
    screenshot(page, "audit-no-ed25519-phone")
    # no checkpoint, no signature to check: the whole report, as Python's
    events = [line for line in lines_of(nd) if not is_checkpoint(line)]
    report = agree(page, base, ndjson(events), "cut.ndjson", "ndjson")
    assert report["checkpoint"]["status"] == "none"
    assert not page.locator("#no-ed25519").is_visible()


# -- a player's export: records withheld from him (§1 placeholders, §3, §4, §5.4) ----------


def player_fight(base: str) -> tuple[Fight, dict[str, str], str]:
    """A Novus fight on server dice: Anna's hero and a goblin in the open, an ambusher the GM
    keeps hidden (every record naming him is withheld from Anna); initiative typed in as IP,
    declarations, a round resolved, a checkpoint. Returns the fight, Anna's Authorization
    header and the ambusher's id."""
    f = Fight(base, "novus", "Hinterhalt an der Furt ñ", dice="server")
    hero = f.add("Hero", novus_stats(), "heroes")
    goblin = f.add("Goblin", target_stats(def_=12, ar=2, hits=30), "raiders")
    r = f.http.post(
        f"/encounters/{f.id}/combatants",
        json={"name": "Zqx Ambusher", "side": "raiders", "stats": novus_stats()}
        | {"hidden": True, "until_acting": False},
    )
    assert r.status_code == 201, r.text
    ambusher = r.json()["id"]
    r = f.http.post(f"/encounters/{f.id}/tokens", json={"combatants": [hero], "label": "Anna"})
    assert r.status_code in (200, 201), r.text
    anna = {"Authorization": f"Bearer {r.json()['token']}"}
    for who, ip in ((hero, 14), (goblin, 9), (ambusher, 5)):
        f.cmd({"type": "roll_initiative", "combatant": who, "ip": ip})

    def declare(acting: str) -> dict[str, Any]:
        if acting == ambusher:
            actions = [{"kind": "melee_attack", "target": hero, "weapon": "sword"}]
        elif acting == hero:
            actions = [{"kind": "melee_attack", "target": goblin, "weapon": "sword"}]
        else:
            actions = [{"kind": "dodge"}]
        return {"type": "declare", "combatant": acting, "actions": actions}

    play(f, ["declare", "resolve"], 8, declare)
    r = f.http.post(f"/encounters/{f.id}/checkpoints")
    assert r.status_code == 201, r.text
    return f, anna, ambusher


def placeholder_positions(lines: list[str]) -> list[int]:
    return [k + 1 for k, line in enumerate(lines) if json.loads(line).get("redacted") is True]


def test_given_a_players_export_with_withheld_records_then_the_page_agrees_with_python(
    open_context: Any,
) -> None:
    """§1/§3: a player's export holds placeholders for the records withheld from him; the
    chain links through each (its hash taken as given) and counts them; a placeholder with
    another member or a hash that is not hex64 breaks the chain there, one whose hash was
    changed breaks it at the next record; §4: voided_by is not checked in such a file; §5.4:
    a face after a withheld record of its command is `withheld`; §6.1: the checkpoint is
    compared with the hash at its position, a placeholder's too."""
    watched = open_context(LAPTOP)
    page = watched.page()
    seen = watch_requests(page)
    base = watched.base
    f, anna, ambusher = player_fight(base)

    def export(kind: str, headers: dict[str, str]) -> str:
        r = httpx.get(f"{base}/encounters/{f.id}/events", params={"format": kind}, headers=headers)
        assert r.status_code == 200, r.text
        return r.text

    nd = export("ndjson", anna)
    cs = export("csv", anna)
    assert ambusher not in nd and ambusher not in cs
    gm_nd = f.get("/events", format="ndjson")
    lines = lines_of(nd)
    events = [line for line in lines if not is_checkpoint(line)]
    tail = [line for line in lines if is_checkpoint(line)]
    assert tail
    n = len(events)
    withheld = placeholder_positions(events)
    assert withheld and withheld[0] < n  # a readable record after a placeholder
    # a placeholder followed by a readable record (which must break when its hash changes)
    p = next(k for k in withheld if k < n and k + 1 not in withheld)
    q = p + 1

    def placeholder(change: Any) -> str:
        return ndjson(edit_record(events, p, change) + tail)

    flipped = lambda h: ("1" if h[0] != "1" else "2") + h[1:]  # noqa: E731
    cells = csv_cells(cs)
    dice_row = next(
        k for k, r in enumerate(cells) if k and r[1] != "Redacted" and r[7] not in ("", "{}")
    )
    row = next(k for k, r in enumerate(cells) if r[1] == "Redacted" and int(r[0]) == p)
    voided_wrong = edit_record(events, q, lambda r: r.__setitem__("voided_by", n))
    nd_cases = {
        "player": nd,
        "extra-member": placeholder(lambda r: r.__setitem__("type", "Moved")),
        "data-member": placeholder(lambda r: r.__setitem__("data", {})),
        "hash-upper": placeholder(lambda r: r.__setitem__("hash", r["hash"].upper())),
        "hash-short": placeholder(lambda r: r.__setitem__("hash", r["hash"][:-1])),
        "hash-null": placeholder(lambda r: r.__setitem__("hash", None)),
        "hash-changed": placeholder(lambda r: r.__setitem__("hash", flipped(r["hash"]))),
        "position-wrong": placeholder(lambda r: r.__setitem__("position", p + 1)),
        "position-string": placeholder(lambda r: r.__setitem__("position", str(p))),
        # only `"redacted": true` makes a placeholder: otherwise a record, and ill-formed
        "redacted-false": placeholder(lambda r: r.__setitem__("redacted", False)),
        "redacted-1": placeholder(lambda r: r.__setitem__("redacted", 1)),
        # §4: voided_by is not checked in a file holding a placeholder
        "voided_by-wrong": ndjson(voided_wrong + tail),
        # the GM's own export: nothing withheld
        "gm-whole": gm_nd,
        "no-checkpoint": ndjson(events),
    }
    csv_cases = {
        "csv-player": cs,
        "csv-hash-changed": csv_edit(cs, row, "hash", flipped(cells[row][9])),
        "csv-hash-upper": csv_edit(cs, row, "hash", cells[row][9].upper()),
        "csv-columns-filled": csv_edit(
            csv_edit(cs, row, "data", '{"x": 1}'), row, "actor", "gm"
        ),  # ignored
        "csv-not-json-ignored": csv_edit(cs, row, "dice", "{"),  # ignored: no JSON read
        "csv-position-empty": csv_edit(cs, row, "position", ""),
        "csv-position-text": csv_edit(cs, row, "position", "x"),  # not an export
        "csv-position-double": csv_edit(cs, row, "position", f"{p}.0"),  # not an export
        # §4: the dice column is still checked on readable records
        "csv-dice-column": csv_edit(cs, dice_row, "dice", "{}"),
    }
    open_audit(page)
    got = agree_all(page, base, nd_cases, csv_cases)

    for name in ("player", "csv-player", "voided_by-wrong", "csv-columns-filled"):
        report = got[name]
        assert report["ok"], (name, report)
        assert report["chain"]["redacted"] == len(withheld), name
        assert report["chain"]["events"] == n
        assert report["checkpoint"]["status"] == "complete", name
    assert got["csv-not-json-ignored"]["ok"]
    assert got["gm-whole"]["chain"]["redacted"] == 0 and got["gm-whole"]["ok"]
    assert got["no-checkpoint"]["checkpoint"]["status"] == "none"
    for name in ("extra-member", "data-member", "hash-upper", "hash-short", "hash-null"):
        chain = got[name]["chain"]
        assert not chain["ok"] and chain["broken_at"] == p and chain["events"] == p, name
        assert got[name]["dice"] is None and got[name]["checkpoint"] is None
    for name in ("hash-changed", "csv-hash-changed"):
        chain = got[name]["chain"]
        assert not chain["ok"] and chain["broken_at"] == p + 1, (name, chain)
    assert got["csv-hash-upper"]["chain"]["broken_at"] == p
    # broken_at: the placeholder's position when it is an integer, else its ordinal
    for name, at in (("position-wrong", p + 1), ("position-string", p), ("csv-position-empty", p)):
        assert got[name]["chain"]["broken_at"] == at, name
        assert got[name]["chain"]["reason"] == f"expected position {p}", name
    assert got["csv-position-text"] is None and got["csv-position-double"] is None
    for name in ("redacted-false", "redacted-1"):
        assert got[name]["chain"]["broken_at"] == p, name
        assert got[name]["chain"]["reason"].startswith("not a well-formed record"), name
    # (`concealed`: whatever the server conceals from this player, counted as Python does)
    assert {k: v for k, v in got["csv-dice-column"]["chain"].items() if k != "concealed"} == {
        "ok": False,
        "events": n,
        "broken_at": dice_row,
        "reason": "the dice column differs from the event's rolls",
        "redacted": len(withheld),
    }

    # the page says it plainly, and shows what it could not check
    page_report(page, nd, "anna.ndjson", "ndjson")
    said = page.locator("#verdict").inner_text()
    k = len(withheld)
    assert f"{k} records of this file are withheld from you (a player's export)" in said
    assert "their place in the chain is checked" in said
    assert page.locator("#verdict .verdict-head").inner_text().startswith("✓")
    assert_nothing_sent(seen, [*nd_cases.values(), *csv_cases.values()])


def test_given_a_withheld_record_within_a_command_then_its_later_faces_are_withheld(
    open_context: Any,
) -> None:
    """§5.4: the example's record 4 (the first initiative roll of command 4) withheld: the
    faces of record 5 (command 4) are `withheld`, not derived, whatever they are; a
    placeholder at position 1 leaves no first record (no commitment: every face
    unrevealed); the page lists the withheld dice. Screenshot: audit-withheld-phone."""
    watched = open_context(PHONE)
    page = watched.page()
    seen = watch_requests(page)
    base = watched.base
    example = lines_of((VECTORS / "example.ndjson").read_text(encoding="utf-8"))
    events = [line for line in example if not is_checkpoint(line)]
    tail = [line for line in example if is_checkpoint(line)]

    def withhold(lines: list[str], *positions: int) -> list[str]:
        out = list(lines)
        for p in positions:
            r = json.loads(out[p - 1])
            out[p - 1] = json.dumps({"position": p, "redacted": True, "hash": r["hash"]})
        return out

    assert json.loads(events[4])["command"] == 4
    forged_face = edit_record(
        events,
        5,
        lambda r: r["data"]["rolls"][next(iter(r["data"]["rolls"]))]["faces"].__setitem__(0, 99),
    )
    cases = {
        "record-4": ndjson(withhold(events, 4) + tail),
        "record-1": ndjson(withhold(events, 1) + tail),
        "records-4-5": ndjson(withhold(events, 4, 5) + tail),
        # a face of record 5 changed and the chain from it recomputed (no checkpoint): the
        # face is withheld, so no mismatch, and the chain holds through the placeholder
        "record-4-face-5": ndjson(withhold(rehash(forged_face), 4)),
    }
    open_audit(page)
    got = {
        name: agree(page, base, text, f"{name}.ndjson", "ndjson") for name, text in cases.items()
    }
    whole = json.loads(
        httpx.post(
            f"{base}/audit/verify",
            content=ndjson(events).encode(),
            headers={"Content-Type": KINDS["ndjson"]},
        ).text
    )["dice"]
    dice = got["record-4"]["dice"]
    assert dice["withheld"] == 1 and dice["ok"]
    assert dice["checked"] == whole["checked"] - 2  # record 4's face gone, record 5's withheld
    assert got["record-4"]["chain"]["redacted"] == 1
    # no first record: no commitment in force, so the reveal is bad (its secret serves
    # epoch 0 all the same)
    assert got["record-1"]["dice"]["bad_reveals"] == [len(events)]
    assert got["record-1"]["dice"]["checked"] == whole["checked"]
    assert got["records-4-5"]["dice"]["withheld"] == 0
    assert got["record-4-face-5"]["dice"]["withheld"] == 1
    assert got["record-4-face-5"]["dice"]["mismatches"] == []
    # the player's export of the example (docs/audit-vectors/withheld.ndjson), on a phone
    text = (VECTORS / "withheld.ndjson").read_text(encoding="utf-8")
    report = agree(page, base, text, "withheld.ndjson", "ndjson")
    assert report["chain"]["redacted"] == 8
    said = page.locator("#verdict").inner_text()
    assert "8 records of this file are withheld from you (a player's export)" in said
    if report["dice"]["withheld"]:
        assert "withheld" in page.locator("#rolls tbody").inner_text()
        assert "not checkable" in page.locator("#dice-summary").inner_text()
    width = page.evaluate("document.documentElement.scrollWidth")
    wide = page.evaluate(
        "[...document.querySelectorAll('*')].filter(e => e.scrollWidth > e.clientWidth + 2)"
        ".map(e => e.tagName + '#' + e.id + '.' + e.className).slice(0, 12)"
    )
    assert width <= PHONE["width"], (width, wide)  # a key id in the verdict wraps
    # with the vector key: complete, 8 records withheld
    page.locator("#keys-box summary").click()
    page.evaluate("document.body.dataset.audit = 'stale'")
    page.set_input_files("#keys-file", str(VECTORS / "keys.json"))
    page.wait_for_selector(FINAL, state="attached", timeout=20_000)
    report = json.loads(page.locator("#report-json").text_content())
    assert report["ok"] and report["checkpoint"]["status"] == "complete"
    said = page.locator("#verdict").inner_text()
    assert "8 records of this file are withheld from you (a player's export)" in said
    page.locator("#verdict-box").scroll_into_view_if_needed()
    screenshot(page, "audit-withheld-phone")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], width
    assert_nothing_sent(seen, list(cases.values()))


# -- a reader's export with concealed records (§1.1, §3.3, §4, §5.4, §8) ---------------------


def test_given_concealed_records_then_the_page_agrees_with_python_and_says_how_many(
    open_context: Any,
) -> None:
    """§1.1: records 8 and 9 of the example concealed (docs/audit-vectors/concealed.*): their
    hashes taken as given, counted (`chain.concealed`); a visible member of a concealed record
    altered is not caught (§8), a record after one altered is; a bad `withheld`, position or
    hash breaks the chain there; rolls withheld make their faces and their command's later
    ones `withheld`; a withheld cascade stops the voided_by check; the CSV's 11th column."""
    watched = open_context(LAPTOP)
    page = watched.page()
    seen = watch_requests(page)
    base = watched.base
    text = (VECTORS / "concealed.ndjson").read_text(encoding="utf-8")
    lines = lines_of(text)
    events = [line for line in lines if not is_checkpoint(line)]
    tail = [line for line in lines if is_checkpoint(line)]

    def changed(position: int, change: Any) -> str:
        out = list(events)
        r = json.loads(out[position - 1])
        change(r)
        out[position - 1] = json.dumps(r, ensure_ascii=False)
        return ndjson(out + tail)

    def rolls_withheld(r: dict[str, Any]) -> None:
        r["withheld"] = [*r["withheld"], "rolls"]
        r["data"]["rolls"]["attack"]["total"] = None

    undo = {
        "position": len(events) + 1,
        "type": "RollVoided",
        "timestamp": json.loads(events[-1])["timestamp"],
        "actor": "gm",
        "cause": None,
        "command": len(events) + 1,
        "data": {"cascade": [10], "reason": "x"},
        "voided_by": None,  # record 10's voided_by stays null: wrong when the cascade is read
    }
    undo["hash"] = hashlib.sha256(
        (json.loads(events[-1])["hash"]).encode()
        + json.dumps(
            {k: v for k, v in undo.items() if k not in ("hash", "voided_by")},
            sort_keys=True,
            separators=(",", ":"),
        ).encode()
    ).hexdigest()
    hidden_undo = {**undo, "data": {"cascade": None, "reason": "x"}, "withheld": ["cascade"]}
    nd_cases = {
        "as-given": text,
        "visible-member-altered": changed(9, lambda r: r["data"].__setitem__("amount", 99)),
        "next-record-altered": changed(10, lambda r: r["data"].__setitem__("metres", 3.5)),
        "withheld-empty": changed(9, lambda r: r.__setitem__("withheld", [])),
        "withheld-twice": changed(9, lambda r: r.__setitem__("withheld", ["amount", "amount"])),
        "withheld-no-member": changed(9, lambda r: r.__setitem__("withheld", ["nothing"])),
        "withheld-string": changed(9, lambda r: r.__setitem__("withheld", "amount")),
        "withheld-secret": changed(16, lambda r: r.__setitem__("withheld", ["secret"])),
        "hash-upper": changed(9, lambda r: r.__setitem__("hash", r["hash"].upper())),
        "wrong-position": changed(9, lambda r: r.__setitem__("position", 10)),
        "rolls-withheld": changed(8, rolls_withheld),
        "rolls-nulled": changed(
            9,
            lambda r: (
                r["data"].__setitem__("rolls", None),
                r.__setitem__("withheld", [*r["withheld"], "rolls"]),
            ),
        ),
        "cascade-read": ndjson([*events, json.dumps(undo)]),
        "cascade-withheld": ndjson([*events, json.dumps(hidden_undo)]),
    }
    csv_text = (VECTORS / "concealed.csv").read_text(encoding="utf-8")
    csv_cases = {
        "csv-as-given": csv_text,
        "csv-withheld-not-strings": csv_text.replace('"[""skill""]"', '"[1]"'),
        "csv-withheld-empty-column": csv_text.replace(',"[""skill""]"', ","),
        "csv-withheld-not-json": csv_text.replace('"[""skill""]"', "[skill"),
        "csv-to-csv": to_csv(events + tail),
    }
    open_audit(page)
    got = agree_all(page, base, nd_cases, csv_cases)
    example = python_report(base, (VECTORS / "example.ndjson").read_text("utf-8"), "ndjson")
    for name in ("as-given", "visible-member-altered", "csv-as-given", "csv-to-csv"):
        assert got[name]["chain"]["ok"] and got[name]["chain"]["concealed"] == 2, name
        assert got[name]["dice"] == example["dice"], name
    assert got["next-record-altered"]["chain"]["broken_at"] == 10
    for name in ("withheld-empty", "withheld-twice", "withheld-no-member", "withheld-string"):
        assert got[name]["chain"]["broken_at"] == 9, name
        assert "concealed" in got[name]["chain"]["reason"], name
    assert got["hash-upper"]["chain"]["broken_at"] == 9
    assert got["wrong-position"]["chain"]["broken_at"] == 10  # its position, 9th read
    assert got["wrong-position"]["chain"]["events"] == 9
    assert got["withheld-secret"]["chain"]["broken_at"] == 16
    # record 8's face and record 9's three (command 6) are withheld, not derived
    assert got["rolls-withheld"]["dice"]["withheld"] == 4 and got["rolls-withheld"]["dice"]["ok"]
    assert got["rolls-withheld"]["dice"]["checked"] == example["dice"]["checked"] - 4
    assert got["rolls-nulled"]["dice"]["withheld"] == 0 and got["rolls-nulled"]["dice"]["ok"]
    assert got["rolls-nulled"]["dice"]["checked"] == example["dice"]["checked"] - 3
    assert got["cascade-read"]["chain"]["broken_at"] == 10
    assert "voided_by" in got["cascade-read"]["chain"]["reason"]
    assert got["cascade-withheld"]["chain"]["ok"]
    assert got["cascade-withheld"]["chain"]["concealed"] == 3
    assert got["csv-withheld-not-strings"]["chain"]["broken_at"] == 8
    assert got["csv-withheld-empty-column"]["chain"]["broken_at"] == 8
    assert got["csv-withheld-not-json"] is None  # not an export
    # the page says how many, with the vector key: complete
    page.locator("#keys-box summary").click()
    page.evaluate("document.body.dataset.audit = 'stale'")
    page.set_input_files("#keys-file", str(VECTORS / "keys.json"))
    page.wait_for_selector(FINAL, state="attached", timeout=20_000)
    report = page_report(page, text, "concealed.ndjson", "ndjson")
    assert report["ok"] and report["checkpoint"]["status"] == "complete"
    said = page.locator("#verdict").inner_text()
    assert "2 records of this file are partly concealed from you" in said
    assert "withheld from you (a player's export)" not in said
    page_report(page, (VECTORS / "example.ndjson").read_text("utf-8"), "x.ndjson", "ndjson")
    assert "concealed" not in page.locator("#verdict").inner_text()
    assert_nothing_sent(seen, [*nd_cases.values(), *csv_cases.values()])
