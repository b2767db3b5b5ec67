"""Point 9 (and the clip side of 8): hostile pages on a 127.0.0.1 server, clipped by the CLI."""

from __future__ import annotations

import json

import pytest

from tests.faults.faults_helpers import cli, text
from tests.webserver import LocalWebServer

ARTICLE = "<p>" + "A real paragraph about the migration of arctic terns across oceans. " * 6 + "</p>"


def page(title: str, body: str) -> str:
    return (f"<!DOCTYPE html><html><head><title>{title}</title></head><body><article>"
            f"<h1>{title}</h1>{body}</article></body></html>")


@pytest.fixture
def site():
    server = LocalWebServer().start()
    yield server
    server.stop()


@pytest.fixture
def clip_home(home, notes):
    """``home`` with the empty ``notes`` folder as its collection ``notes``, where clips go.
    Added through the library (a CLI launch less per test): the clips go through the CLI."""
    from pms_tui.core.kb import KnowledgeBase

    with KnowledgeBase(home=home) as kb:
        kb.collections.create(notes, name="notes")
    return home


@pytest.mark.parametrize("target", [
    "http://169.254.169.254/latest/meta-data/",
    "http://[fe80::1]/",
    "http://10.0.0.1/admin",
    "http://192.168.1.1/",
    "http://localhost:9/",
    "http://[::1]:9/",
    "http://0.0.0.0:9/",
])
def test_a_redirect_to_a_private_or_link_local_address_is_refused(site, clip_home, notes, target):
    url = site.redirect("/hop", target)
    proc = cli(clip_home, "clip", url, check=False, timeout=120)
    err = text(proc.stderr)
    assert proc.returncode != 0, err
    assert "redirect" in err.lower() and ("private" in err or "local" in err), err
    assert err.strip().count("\n") == 0
    assert not list(notes.iterdir())


def test_a_dns_answer_that_changes_after_the_check_is_caught_by_the_connected_address(site, monkeypatch):
    """DNS rebinding: the name looks public when checked, then connects to 127.0.0.1. The DNS
    answer at check time is a fake (pure logic); the connection and the server are real."""
    import ipaddress

    from pms_tui.core.clip import redirect_guard
    from pms_tui.core.clip.fetch import fetch
    from pms_tui.core.errors import ClipError

    site.add("/inside", page("Router admin", ARTICLE))
    port = site.url("/").split(":")[2].split("/")[0]
    url = site.redirect("/hop", f"http://localhost:{port}/inside")
    monkeypatch.setattr(redirect_guard, "_addresses",
                        lambda host, port: [ipaddress.ip_address("93.184.216.34")])  # fake: public
    with pytest.raises(ClipError, match=r"answered from 127\.0\.0\.1"):
        fetch(url)


def test_redirects_inside_the_address_the_user_typed_still_work(site, clip_home, notes):
    site.add("/real", page("Terns", ARTICLE))
    url = site.redirect("/hop", site.url("/real"))
    proc = cli(clip_home, "clip", url)
    assert "Terns" in text(proc.stdout) or list(notes.iterdir())


def test_javascript_and_other_links_are_dropped_however_encoded(site, clip_home, notes):
    links = [
        '<a href="java&#x09;script:alert(1)">tab</a>',
        '<a href="java&#x0A;script:alert(2)">newline</a>',
        '<a href="&#x20;javascript:alert(3)">space</a>',
        '<a href="JaVaScRiPt:alert(4)">case</a>',
        '<a href="&#106;avascript:alert(5)">entity</a>',
        '<a href="javascript&colon;alert(6)">named colon</a>',
        '<a href="vbscript:msgbox(7)">vb</a>',
        '<a href="data:text/html;base64,PHNjcmlwdD4=">data</a>',
        '<a href="file:///etc/passwd">file</a>',
        '<a href="https://example.org/ok">fine link</a>',
        '<a href="mailto:someone@example.org">mail</a>',
    ]
    body = ARTICLE + "<p>Links: " + ", ".join(links) + " and more words about terns to keep.</p>" + ARTICLE
    url = site.add("/links", page("Links page", body))
    cli(clip_home, "clip", url)
    [note] = list(notes.iterdir())
    written = note.read_text()
    lowered = "".join(written.lower().split())
    for bad in ("javascript", "vbscript", "data:", "file:", "alert("):
        assert f"]({bad}" not in lowered and bad not in lowered.replace("alert(1)", ""), (bad, written)
    assert "(https://example.org/ok)" in written and "mailto:someone@example.org" in written


def test_a_numeric_entity_for_a_control_character_is_text(site, clip_home, notes):
    body = f"<p>The escape character &#27; appears here, and &#7; and &#155; too.</p>{ARTICLE}"
    url = site.add("/entity", page("Entities &#27;[2J", body))
    proc = cli(clip_home, "clip", url, "--json")
    result = json.loads(proc.stdout)
    assert result["status"] == "created"
    [note] = list(notes.iterdir())
    written = note.read_text()
    assert "\x1b" not in written and "\x07" not in written and "\x9b" not in written
    assert "escape character" in written
