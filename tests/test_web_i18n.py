"""The page's message catalogues (``web/static/i18n/*.json``) against each other and the page.

Every language has every key, no message is empty, a message has the same
placeholders in every language, a counted message has the plural forms its
language needs; every key the page's scripts and HTML (and the lessons' data)
use is in the catalogues, and every key of the catalogues is used. The page's HTML has no
words outside a ``data-i18n`` mark. docs/i18n.md tells how to add a
language; these are the checks it has to pass (with the browser's in
``test_web_e2e.py``, which reads the page as it is shown).
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, ClassVar

import pytest

from doublecorner.learn import load_course

STATIC = Path(__file__).parent.parent / "src" / "doublecorner" / "web" / "static"
CATALOGUES = STATIC / "i18n"
SOURCE = "en"  # the catalogue the others are translated from

# The plural categories that Intl.PluralRules (CLDR) gives each language: a counted message
# is an object with exactly these forms.
PLURAL_CATEGORIES = {"en": {"one", "other"}, "ga": {"one", "two", "few", "many", "other"}}

# Text literals of the scripts shaped like keys that are not keys: the localStorage keys, and
# a CSS selector.
NOT_KEYS = {"doublecorner.settings", "doublecorner.lastGame", "doublecorner.tokens",
            "doublecorner.invites", "doublecorner.language", "doublecorner.learn",
            "rect.square.playing"}

# Elements of index.html whose words the scripts write (each with its catalogue key there).
WRITTEN_BY_SCRIPT = {"takeback", "accept-draw", "claim-draw", "resign", "analysis-toggle"}

PLACEHOLDER = re.compile(r"\{(\w+)\}")
Message = str | dict[str, str]


def catalogue(language: str) -> dict[str, Message]:
    loaded: dict[str, Message] = json.loads(
        (CATALOGUES / f"{language}.json").read_text(encoding="utf-8"))
    return loaded


LANGUAGES = sorted(path.stem for path in CATALOGUES.glob("*.json"))
TRANSLATIONS = [language for language in LANGUAGES if language != SOURCE]


def forms(message: Message) -> list[str]:
    """The texts of a message: itself, or each of its plural forms."""
    return list(message.values()) if isinstance(message, dict) else [message]


def placeholders(message: Message) -> set[str]:
    return {name for text in forms(message) for name in PLACEHOLDER.findall(text)}


def scripts() -> dict[str, str]:
    return {path.name: path.read_text(encoding="utf-8") for path in STATIC.glob("*.js")}


def html() -> str:
    """The HTML of every page (index.html, learn.html), one after the other."""
    return "".join(path.read_text(encoding="utf-8") for path in sorted(STATIC.glob("*.html")))


def keys_in_lessons() -> set[str]:
    """The keys the lessons' data names (doublecorner/learn/lessons.json), which learn.js shows."""
    return load_course().text_keys()


def keys_in_html(text: str) -> set[str]:
    found = set(re.findall(r'data-i18n="([^"]+)"', text))
    for marks in re.findall(r'data-i18n-attr="([^"]+)"', text):
        found.update(pair.split(":", 1)[1].strip() for pair in marks.split(";") if pair.strip())
    return found


def keys_in_script(text: str) -> set[str]:
    """The keys a script names: t("key", ...) and every literal shaped like a key."""
    called = set(re.findall(r"""\bt\(\s*["']([^"']+)["']""", text))
    shaped = set(re.findall(r"""["']([a-z][A-Za-z]*(?:\.[A-Za-z][A-Za-z0-9]*)+)["']""", text))
    return called | (shaped - NOT_KEYS)


def test_every_language_in_the_picker_has_a_catalogue_and_its_plural_categories() -> None:
    listed = re.search(r"export const LANGUAGES = \{([^}]*)\}", scripts()["i18n.js"])
    assert listed is not None
    picker = set(re.findall(r"(\w+):", listed.group(1)))
    assert picker == set(LANGUAGES) == set(PLURAL_CATEGORIES)


@pytest.mark.parametrize("language", TRANSLATIONS)
def test_each_catalogue_has_exactly_the_keys_of_the_english_one(language: str) -> None:
    source, translated = catalogue(SOURCE), catalogue(language)
    assert sorted(set(source) - set(translated)) == [], f"missing in {language}.json"
    assert sorted(set(translated) - set(source)) == [], f"not in {SOURCE}.json"


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_message_is_empty_or_a_bare_placeholder(language: str) -> None:
    for key, message in catalogue(language).items():
        assert isinstance(message, (str, dict)), key
        for text in forms(message):
            assert isinstance(text, str) and text.strip(), f"{language}: {key} is empty"
            # A message that is only a placeholder would let any text pass for it.
            assert not re.fullmatch(r"\s*\{\w+\}\s*", text), f"{language}: {key} is {text!r}"


@pytest.mark.parametrize("language", TRANSLATIONS)
def test_each_message_has_the_same_placeholders_in_every_language(language: str) -> None:
    source, translated = catalogue(SOURCE), catalogue(language)
    for key in source.keys() & translated.keys():
        assert placeholders(translated[key]) == placeholders(source[key]), f"{language}: {key}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_counted_message_has_its_languages_plural_forms(language: str) -> None:
    for key, message in catalogue(language).items():
        if not isinstance(message, dict):
            continue
        assert set(message) == PLURAL_CATEGORIES[language], f"{language}: {key}"
        # Only a count picks a form; a form may spell its number out ("cluiche amháin").
        assert "count" in placeholders(catalogue(SOURCE)[key]), f"{key} counts nothing"
        for text in forms(message):
            assert placeholders(text) <= placeholders(message), f"{language}: {key}: {text!r}"


def test_every_key_the_page_uses_is_in_the_catalogues() -> None:
    known = set(catalogue(SOURCE))
    used = {"the pages": keys_in_html(html()), "the lessons": keys_in_lessons()}
    used.update((name, keys_in_script(text)) for name, text in scripts().items())
    unknown = {name: sorted(keys - known) for name, keys in used.items() if keys - known}
    assert unknown == {}


def test_every_key_of_the_catalogues_is_used() -> None:
    used = keys_in_html(html()).union(keys_in_lessons(), *map(keys_in_script, scripts().values()))
    assert sorted(set(catalogue(SOURCE)) - used) == []


def test_the_key_check_sees_a_key_that_is_not_in_the_catalogue() -> None:
    assert keys_in_script('status = t("status.nowhere", { side });') == {"status.nowhere"}
    assert keys_in_script('const KEYS = { a: "error.nowhere" };') == {"error.nowhere"}
    assert keys_in_html('<b data-i18n="x.y">X</b><i data-i18n-attr="title:a.b; aria-label:c.d">'
                        ) == {"x.y", "a.b", "c.d"}


class _Words(HTMLParser):
    """The words of a page that stand outside every data-i18n mark (and outside what the
    scripts fill, and <title>, which i18n.js sets)."""

    VOID: ClassVar[set[str]] = {"area", "base", "br", "col", "embed", "hr", "img", "input",
                                "link", "meta", "source", "track", "wbr"}

    def __init__(self) -> None:
        super().__init__()
        self.open: list[bool] = []  # per open element: are its words the catalogue's?
        self.loose: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.VOID:
            return
        marks = dict(attrs)
        covered = ("data-i18n" in marks or marks.get("data-testid") in WRITTEN_BY_SCRIPT
                   or tag in ("title", "script", "style"))
        self.open.append(covered or bool(self.open and self.open[-1]))

    def handle_endtag(self, tag: str) -> None:
        if tag not in self.VOID and self.open:
            self.open.pop()

    def handle_data(self, data: str) -> None:
        # Words are letters; the arrows' glyphs (&laquo; and the like) are none.
        if re.search(r"[^\W\d_]", data) and not (self.open and self.open[-1]):
            self.loose.append(data.strip())


def loose_words(page: str) -> list[str]:
    parser = _Words()
    parser.feed(page)
    return parser.loose


def test_the_pages_html_has_no_words_outside_the_catalogue() -> None:
    assert loose_words(html()) == []


def test_the_html_check_sees_a_word_outside_the_catalogue() -> None:
    page = html().replace("<main", '<p class="planted">Hello there</p><main', 1)
    assert loose_words(page) == ["Hello there"]


def test_the_page_sets_every_data_i18n_params_as_json() -> None:
    for params in re.findall(r"data-i18n-params='([^']*)'", html()):
        parsed: Any = json.loads(params)
        assert isinstance(parsed, dict) and parsed
