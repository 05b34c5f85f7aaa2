"""Distillation into typed atoms: the offline heuristics on English and Russian text, the Ollama
distiller and the self-critique verdict against a real HTTP fake of Ollama on 127.0.0.1."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pegas_memory.config import load_settings
from pegas_memory.distill.llm import InvalidModelOutput, ModelTimeout, OllamaChat
from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.ollama import (
    CandidateText,
    NeighbourText,
    OllamaDistiller,
    build_distiller,
    critique,
    locate_quote,
)
from pegas_memory.distill.types import ATOM_TYPES, OFFLINE_VERSION, ChunkContext, DraftAtom
from pegas_memory.errors import BackendUnavailable
from tests.fake_ollama import FakeOllama
from tests.loopback import free_port

MODEL = "qwen2.5:7b-instruct"
CTX = ChunkContext()


def offline(text: str, context: ChunkContext = CTX) -> list[DraftAtom]:
    atoms = OfflineDistiller().distill(text, context)
    for atom in atoms:
        assert text[atom.quote_start : atom.quote_end] == atom.quote
        assert atom.type in ATOM_TYPES and atom.claim and 0 <= atom.confidence <= 1
    return atoms


def only(atoms: list[DraftAtom], kind: str) -> DraftAtom:
    found = [a for a in atoms if a.type == kind]
    assert len(found) == 1, [(a.type, a.claim) for a in atoms]
    return found[0]


def by_claim(atoms: list[DraftAtom], start: str) -> DraftAtom:
    found = [a for a in atoms if a.claim.startswith(start)]
    assert found, [(a.type, a.claim) for a in atoms]
    return found[0]


# --- offline: English ---------------------------------------------------------------------------

EN = """# Information theory

Entropy is a measure of the uncertainty of a random variable. Mutual information refers to the \
information one variable holds about another. A group whose operation is commutative is called \
an abelian group. Claude Shannon published the theory in 1948 at Bell Labs.
It is used everywhere. Good ideas are rarely simple to explain to anyone?

Home | About | Contact | Blog
"""


def test_english_definitions_with_their_terms() -> None:
    atoms = offline(EN)
    entropy = by_claim(atoms, "Entropy is")
    assert entropy.type == "definition"
    assert entropy.metadata["term"] == "Entropy"
    assert entropy.content == "a measure of the uncertainty of a random variable"
    assert entropy.language == "en" and entropy.confidence == 0.7
    assert by_claim(atoms, "Mutual information").metadata["term"] == "Mutual information"
    assert by_claim(atoms, "A group whose").metadata["term"] == "abelian group"


def test_english_facts_text_and_skipped_trivia() -> None:
    atoms = offline(EN)
    shannon = by_claim(atoms, "Claude Shannon")
    assert shannon.type == "fact" and shannon.confidence == 0.6
    # "It" leans on the sentence before: one atom whose quote spans both.
    assert shannon.claim.endswith("at Bell Labs. It is used everywhere.")
    assert not [a for a in atoms if a.claim.startswith("It is used")]
    # alone, no word of the claim says what "it" is: it stays in its passage (distill.reference)
    assert offline("It is used everywhere in modern engineering.") == []
    assert by_claim(atoms, "Good ideas").type == "text"  # a question is no fact
    claims = " ".join(a.claim for a in atoms)
    assert "Information theory" not in claims  # heading
    assert "Contact" not in claims  # navigation


# --- offline: Russian ---------------------------------------------------------------------------

RU = """## Термодинамика

Энтропия — это мера неопределённости. Под энтропией понимается также мера хаоса системы, \
т. е. её беспорядка. Рудольф Клаузиус ввёл это понятие в 1865 году. Фотосинтез (от греч. φῶς — \
свет и σύνθεσις — соединение) — процесс образования органических веществ на свету.
Окружностью называется множество точек плоскости, равноудалённых от центра. Проф. Иванов сказал \
«это важно» и ушёл. Они согласились.
"""


def test_russian_definition_eto() -> None:
    atoms = offline("Энтропия — это мера неопределённости.")
    atom = only(atoms, "definition")
    assert atom.metadata["term"] == "Энтропия"
    assert atom.claim == "Энтропия — это мера неопределённости."
    assert atom.content == "мера неопределённости"
    assert atom.language == "ru" and atom.confidence == 0.75


def test_russian_paragraph() -> None:
    atoms = offline(RU)
    terms = {a.metadata["term"] for a in atoms if a.type == "definition"}
    assert {"Энтропия", "энтропией", "Фотосинтез", "Окружностью"} <= terms
    # razdel keeps "т. е." and "Проф." inside their sentences.
    assert by_claim(atoms, "Под энтропией").claim.endswith("т. е. её беспорядка.")
    # "это понятие": which one, only the sentence before says: it stays in its passage
    assert not [a for a in atoms if a.claim.startswith("Рудольф Клаузиус")]
    # "Они" leans on the sentence before: joined with it, never an atom of its own.
    assert by_claim(atoms, "Проф. Иванов").claim.endswith("«это важно» и ушёл. Они согласились.")
    assert all(a.language == "ru" for a in atoms)
    assert "Термодинамика" not in " ".join(a.claim for a in atoms)
    assert not [a for a in atoms if a.claim == "Они согласились."]


def test_mixed_chunk_gives_each_sentence_its_language() -> None:
    text = "Энтропия — это мера неопределённости системы. The entropy of a fair coin is one bit."
    atoms = offline(text, ChunkContext(language="ru"))
    assert [a.language for a in atoms] == ["ru", "en"]


# --- offline: blocks ----------------------------------------------------------------------------


def test_code_fence_table_and_rule() -> None:
    text = (
        "Some code follows below, explained later.\n\n"
        "```python\ndef entropy(p):\n    return -sum(x * log(x) for x in p)\n```\n\n"
        "| Symbol | Meaning |\n|---|---|\n| H | entropy |\n| p | probability |\n\n"
        'Transitive dependencies: {"if": ["depends_on", "depends_on"], "then": "depends_on"}\n'
    )
    atoms = offline(text)
    code = only(atoms, "code")
    assert code.content == "def entropy(p):\n    return -sum(x * log(x) for x in p)"
    assert code.quote == code.content
    assert code.metadata["code_language"] == "python" and code.metadata["names"] == ["entropy"]
    assert code.claim == "Code (python) defines entropy" and code.confidence == 0.9
    table = only(atoms, "table")
    assert table.metadata["columns"] == ["Symbol", "Meaning"] and table.metadata["rows"] == 2
    assert table.quote.startswith("| Symbol") and table.quote.endswith("| probability |")
    rule = only(atoms, "logical_rule")
    assert json.loads(rule.content) == {"if": ["depends_on", "depends_on"], "then": "depends_on"}
    assert rule.claim == "Rule: if depends_on and depends_on then depends_on"
    assert rule.metadata["machine_readable"] is True
    # the prose before the JSON on the same line is not swallowed into the rule
    assert all("{" not in a.claim for a in atoms if a.type in ("fact", "text"))


def test_code_names_only_definitions_that_open_their_line() -> None:
    """A keyword in a comment or a config rule defines nothing ("class com" was a claim)."""
    text = (
        "Add these rules to your ProGuard configuration:\n\n"
        "```\n# Keep class TypeToken (respectively its generic signature)\n"
        "-keep class com.google.gson.reflect.TypeToken { *; }\n```\n\n"
        "And a module:\n\n```ts\nexport default async function loadUser() {}\n```\n"
    )
    codes = [a for a in offline(text) if a.type == "code"]
    assert [c.metadata["names"] for c in codes] == [[], ["loadUser"]]
    assert codes[0].claim == "Code: # Keep class TypeToken (respectively its generic signature)"
    assert codes[1].claim == "Code (ts) defines loadUser"


def test_fenced_json_rule_and_human_rule_in_russian() -> None:
    text = (
        "Правила вывода для графа зависимостей:\n\n"
        '```json\n[{"if": "imports", "then": "depends_on"},\n'
        ' {"if": "calls", "then": "uses it"}]\n```'
    )
    rule = only(offline(text), "logical_rule")
    assert rule.claim == "Правило: если imports, то depends_on; Правило: если calls, то uses it"
    assert rule.metadata["machine_readable"] is False  # "uses it" is not a single token


def test_indented_code_but_not_indented_prose() -> None:
    text = (
        "The loop is short and clear:\n\n    for i in range(3):\n        print(i)\n\n"
        "Then the prose goes on, as prose does in many books.\n\n"
        "    An indented paragraph of a book, which is prose and not code at all.\n"
    )
    atoms = offline(text)
    assert only(atoms, "code").content == "for i in range(3):\n        print(i)"
    assert by_claim(atoms, "An indented paragraph").type in ("text", "fact")


def test_unterminated_fence_runs_to_the_end() -> None:
    atoms = offline("Intro sentence that stands alone here.\n\n```\nx = 1\ny = 2")
    assert only(atoms, "code").content == "x = 1\ny = 2"


def test_list_items_are_separate_units() -> None:
    text = "Features of the tool:\n- Supports Python 3.11 and later versions\n- Free\n"
    atoms = offline(text)
    item = by_claim(atoms, "Features of the tool: Supports Python")
    assert item.quote == "Supports Python 3.11 and later versions" and item.type == "fact"
    # the item's claim carries its list's lead-in (ingest/test_markup_docs.py); its quote does not
    assert item.claim == "Features of the tool: Supports Python 3.11 and later versions"
    assert not [a for a in atoms if a.claim == "Free"]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.sampled_from(
            ["```", "~~~", "|", "---", "\n", "\n\n", "    ", "{", '"if"', '"then"', ":", "—",
             " это ", " is a ", "называется", "# ", "- ", "1. ", ".", "«", "»", "x = 1;"]
        )
        | st.text(max_size=20),
        max_size=30,
    ).map("".join)
)  # fmt: skip
def test_any_text_never_crashes_and_quotes_are_exact(text: str) -> None:
    for atom in offline(text):
        assert atom.quote.strip()
        assert 0 <= atom.quote_start < atom.quote_end <= len(text)


# --- quotes -------------------------------------------------------------------------------------

SHANNON = "Shannon  defined   information entropy in 1948."
CHUNK = (
    "Энтропия — это мера неопределённости. Её ввёл Рудольф Клаузиус в 1865 году.\n"
    + SHANNON
    + " It measures surprise."
)


@pytest.mark.parametrize(
    ("quote", "expected"),
    [
        ("Энтропия — это мера неопределённости.", "Энтропия — это мера неопределённости."),
        ("энтропия - это мера неопределенности.", "Энтропия — это мера неопределённости."),
        ("Shannon defined information entropy in 1948.", SHANNON),
        ("Её ввёл Рудольф Клаузиус в 1865 г.", "Её ввёл Рудольф Клаузиус в 1865 году."),
        ("Shannon defined ... in 1948.", SHANNON),
    ],
)  # fmt: skip
def test_near_quotes_snap_to_the_real_span(quote: str, expected: str) -> None:
    span = locate_quote(CHUNK, quote)
    assert span is not None and CHUNK[span[0] : span[1]] == expected


@pytest.mark.parametrize("quote", ["", "Gravity bends light around the sun.", "совсем другое"])
def test_quotes_not_in_the_chunk_are_refused(quote: str) -> None:
    assert locate_quote(CHUNK, quote) is None


# --- Ollama distiller ---------------------------------------------------------------------------


def atom_json(kind: str, claim: str, quote: str, **extra: Any) -> dict[str, Any]:
    return {"type": kind, "claim": claim, "content": extra.pop("content", claim),
            "confidence": extra.pop("confidence", 0.8), "quote": quote, **extra}  # fmt: skip


def distiller_for(fake: FakeOllama, *, retries: int = 1, timeout: float = 10.0) -> OllamaDistiller:
    return OllamaDistiller(OllamaChat(fake.url, MODEL, timeout=timeout, retries=retries))


def chat_requests(fake: FakeOllama) -> list[dict[str, Any]]:
    return [body for path, body in fake.requests if path == "/api/chat"]


def test_ollama_atoms_are_checked_against_the_chunk() -> None:
    answer = {
        "atoms": [
            atom_json("definition", "Энтропия — мера неопределённости", "Энтропия — это мера "
                      "неопределённости.", content="мера неопределённости", term="Энтропия"),
            atom_json("fact", "Рудольф Клаузиус ввёл понятие энтропии в 1865 году",
                      "Её ввёл Рудольф Клаузиус в 1865 году."),
            atom_json("fact", "Shannon defined information entropy in 1948",
                      "Shannon defined information entropy in 1948."),  # whitespace differs
            atom_json("fact", "Энтропия измеряется в джоулях", "Энтропия измеряется в джоулях."),
        ]
    }  # fmt: skip
    with FakeOllama(chat=lambda req: answer) as fake:
        atoms = distiller_for(fake).distill(CHUNK, ChunkContext(title="Термодинамика"))
        (request,) = chat_requests(fake)
    assert [a.claim for a in atoms] == [
        "Энтропия — мера неопределённости",
        "Рудольф Клаузиус ввёл понятие энтропии в 1865 году",
        "Shannon defined information entropy in 1948",
    ]  # the atom whose quote is not in the chunk is dropped
    for atom in atoms:
        assert CHUNK[atom.quote_start : atom.quote_end] == atom.quote
        assert atom.metadata["distiller"] == "ollama"
        assert atom.metadata["prompt_version"] == "distill-v2"
        assert atom.metadata["typed_by"] == "model"  # the model typed it, no rule
    assert atoms[0].metadata["term"] == "Энтропия" and atoms[0].type == "definition"
    assert atoms[2].quote == SHANNON
    assert [a.language for a in atoms] == ["ru", "ru", "en"]
    user = request["messages"][1]["content"]
    assert "Document: Термодинамика" in user and "write the atoms in Russian" in user
    assert CHUNK in user and request["format"]["required"] == ["atoms"]


def test_ollama_invalid_then_valid_answer_is_retried() -> None:
    good = {
        "atoms": [atom_json("fact", "Shannon defined entropy in 1948", "It measures surprise.")]
    }
    answers = iter(["not json at all", good])
    with FakeOllama(chat=lambda req: next(answers)) as fake:
        atoms = distiller_for(fake).distill(CHUNK, CTX)
        assert len(chat_requests(fake)) == 2
    assert [a.metadata["distiller"] for a in atoms] == ["ollama"]


def test_ollama_always_invalid_falls_back_offline() -> None:
    with FakeOllama(chat=lambda req: {"atoms": [{"type": "poem"}]}) as fake:
        atoms = distiller_for(fake, retries=1).distill(CHUNK, CTX)
        assert len(chat_requests(fake)) == 2
    assert atoms and {a.metadata["distiller"] for a in atoms} == {"offline-fallback"}
    assert "invalid output" in atoms[0].metadata["fallback_reason"]
    assert atoms[0].metadata["prompt_version"] == OFFLINE_VERSION
    assert [a.claim for a in atoms] == [a.claim for a in offline(CHUNK)]


def test_ollama_answer_with_no_real_quote_falls_back() -> None:
    answer = {"atoms": [atom_json("fact", "Invented claim", "Nothing like this is in the chunk.")]}
    with FakeOllama(chat=lambda req: answer) as fake:
        atoms = distiller_for(fake).distill(CHUNK, CTX)
    assert atoms and atoms[0].metadata["fallback_reason"].startswith("no quote")


def test_ollama_empty_answer_is_respected() -> None:
    with FakeOllama(chat=lambda req: {"atoms": []}) as fake:
        assert distiller_for(fake).distill(CHUNK, CTX) == []
        assert distiller_for(fake).distill("   \n ", CTX) == []
        assert len(chat_requests(fake)) == 1  # blank chunks never reach the model


def test_slow_model_falls_back_within_the_bound_and_stops_asking() -> None:
    with FakeOllama(chat=lambda req: {"atoms": []}, delay=3.0) as fake:
        distiller = distiller_for(fake, timeout=0.4)
        started = time.monotonic()
        first = distiller.distill(CHUNK, CTX)
        second = distiller.distill(CHUNK, CTX)
        elapsed = time.monotonic() - started
        assert len(chat_requests(fake)) == 1  # the second chunk did not wait for the model
    assert elapsed < 2.5
    assert first[0].metadata["distiller"] == "offline-fallback"
    assert "did not answer within" in first[0].metadata["fallback_reason"]
    assert "unavailable recently" in second[0].metadata["fallback_reason"]


def test_server_down_falls_back() -> None:
    distiller = OllamaDistiller(OllamaChat(f"http://127.0.0.1:{free_port()}", MODEL, timeout=5.0))
    atoms = distiller.distill(CHUNK, CTX)
    assert atoms and "not reachable" in atoms[0].metadata["fallback_reason"]


def test_missing_model_falls_back_with_the_pull_hint() -> None:
    with FakeOllama(models=("embeddinggemma",)) as fake:
        atoms = distiller_for(fake).distill(CHUNK, CTX)
    assert "ollama pull qwen2.5:7b-instruct" in atoms[0].metadata["fallback_reason"]


def test_build_distiller_follows_the_settings() -> None:
    assert isinstance(build_distiller(load_settings()), OfflineDistiller)
    distiller = build_distiller(load_settings(ollama_url="http://127.0.0.1:9", chat_model="m"))
    assert isinstance(distiller, OllamaDistiller)
    assert distiller.name == "ollama:m" and distiller.prompt_version == "distill-v2"
    assert isinstance(distiller.fallback, OfflineDistiller)


# --- self-critique ------------------------------------------------------------------------------

NEIGHBOURS = [
    NeighbourText(11, "Water boils at 100 °C at sea level.", similarity=0.93),
    NeighbourText(12, "The boiling point of water depends on pressure.", similarity=0.81),
]
CANDIDATE = CandidateText("Water boils at 90 °C at sea level.", type="fact")


def test_critique_contradiction_names_the_neighbour() -> None:
    answer = {"verdict": "contradicts", "reason": "different boiling point", "ref_id": 11}
    with FakeOllama(chat=lambda req: answer) as fake:
        chat = OllamaChat(fake.url, MODEL, timeout=10.0)
        verdict = critique(chat, CANDIDATE, NEIGHBOURS)
        (request,) = chat_requests(fake)
    assert (verdict.verdict, verdict.reason, verdict.ref_id) == (
        "contradicts", "different boiling point", 11,
    )  # fmt: skip
    user = request["messages"][1]["content"]
    assert "id 11: Water boils at 100 °C" in user and "id 12:" in user
    assert request["format"]["properties"]["verdict"]["enum"] == [
        "new", "duplicate", "corroborates", "contradicts",
    ]  # fmt: skip


def test_critique_new_drops_a_stray_reference() -> None:
    answer = {"verdict": "new", "reason": "nothing similar\nstored", "ref_id": 12}
    with FakeOllama(chat=lambda req: answer) as fake:
        verdict = critique(OllamaChat(fake.url, MODEL, timeout=10.0), CANDIDATE, NEIGHBOURS)
    assert verdict.verdict == "new" and verdict.ref_id is None
    assert verdict.reason == "nothing similar stored"


@pytest.mark.parametrize(
    "answer",
    [
        {"verdict": "duplicate", "reason": "same claim", "ref_id": 99},  # not a listed neighbour
        {"verdict": "maybe", "reason": "unsure", "ref_id": None},  # not a verdict
        {"verdict": "corroborates", "reason": "...", "ref_id": 11},  # no words in the reason
        "I think it is new.",  # not JSON
    ],
)
def test_critique_nonsense_raises_after_retries(answer: Any) -> None:
    with FakeOllama(chat=lambda req: answer) as fake:
        chat = OllamaChat(fake.url, MODEL, timeout=10.0, retries=1)
        with pytest.raises(InvalidModelOutput, match="check could not run"):
            critique(chat, CANDIDATE, NEIGHBOURS)
        assert len(chat_requests(fake)) == 2


def test_critique_without_neighbours_needs_no_model() -> None:
    with FakeOllama() as fake:
        verdict = critique(OllamaChat(fake.url, MODEL), CANDIDATE, [])
        assert chat_requests(fake) == []
    assert verdict.verdict == "new" and verdict.ref_id is None


def test_critique_slow_or_absent_model_raises_backend_unavailable() -> None:
    with FakeOllama(delay=3.0) as fake, pytest.raises(ModelTimeout):
        critique(OllamaChat(fake.url, MODEL), CANDIDATE, NEIGHBOURS, timeout=0.3)
    with FakeOllama(models=()) as fake, pytest.raises(BackendUnavailable, match="ollama pull"):
        critique(OllamaChat(fake.url, MODEL), CANDIDATE, NEIGHBOURS)


def test_sentence_of_links_whose_targets_hold_brackets_is_no_breadcrumb() -> None:
    """A javadoc link's target holds brackets ("#setStrictness(com.google.gson.Strictness)"):
    the sentence of three such links is prose, not a menu line (it was dropped whole)."""
    url = "https://www.javadoc.io/doc/com.google.code.gson/gson/latest/com.google.gson/com/google"
    text = (
        f"If you are using Gson 2.11.0 or newer, call [`GsonBuilder.setStrictness`]({url}/gson/"
        "GsonBuilder.html#setStrictness(com.google.gson.Strictness)),\n"
        f"[`JsonReader.setStrictness`]({url}/gson/stream/JsonReader.html#setStrictness(x.y))\n"
        f"and [`JsonWriter.setStrictness`]({url}/gson/stream/JsonWriter.html#setStrictness(x.y))\n"
        "with `Strictness.STRICT` to overwrite the default lenient behavior of `Gson`.\n"
    )
    (atom,) = offline(text)
    assert atom.claim.startswith("If you are using Gson 2.11.0 or newer, call GsonBuilder.")
    assert atom.claim.endswith("to overwrite the default lenient behavior of Gson.")
    menu = "[Home](/a/b) / [Docs](/a/c(d)) / [API](/e/f) / [Blog](/g/h)\n\nGson is a library."
    assert [a.claim for a in offline(menu)] == ["Gson is a library."]
