"""Types by grammar: steps, plans and scopes (issue 15, the type errors of graded sample 16161 and
the open ones of 13131 to 15151): a step opened by a verb with its particle ("Type in color in
cmd.exe ...") is an instruction; a plan or scope told in the passive ("... will be summarized", "X
are discussed") or a focus ("A particular focus lies on ...") and "In this document we present ..."
are text; a clause before a dash of apposition ("Матерью Ашоки была Субхадранги — дочь ...")
defines nothing; an "X — это Y" definition is not carried for a category noun in its genus; "как
если бы" is no counterfactual; a Russian norm after a statement, in brackets or in an order leaves
the statement; the short participles in "-т", "может", "возник", "шли" are finite verbs; "у X Y"
states a property; a Russian claim with no subject and no verb states what it says of the subject
carried onto it; seed 17171: "X is a fatal disease, primarily due to ..." defines nothing. Each
rule on both sides."""

from __future__ import annotations

import pytest

from pegas_memory.distill.leads import lead_carry
from pegas_memory.distill.mood import instructs
from pegas_memory.distill.norms_ru import ru_instructs
from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.patterns import is_fact, match_definition
from pegas_memory.distill.predicate_ru import possessive, predicate_of
from pegas_memory.distill.steps_en import imperative_step
from pegas_memory.distill.types import ChunkContext, DraftAtom
from tests.both_sides import both_sides


def atoms(text: str, language: str, heading: str | None = None) -> list[DraftAtom]:
    context = ChunkContext("Doc", (heading,) if heading else (), language)
    return OfflineDistiller().distill(text, context)


# --- a verb with its particle opens a step ---


@pytest.mark.parametrize(
    "sentence",
    [
        'Type in color in cmd.exe (Command Prompt) and echo -ne "\\033[0m" on Unix-like systems'
        " to restore your original foreground color.",
        "Log in to the dashboard with your account.",
        "Turn off the firewall before you start.",
        "Sign up for an account with your e-mail address.",
        "Identify duplicates, and close the bugs that will never be fixed.",
    ],
)
def test_a_verb_with_its_particle_is_a_step(sentence: str) -> None:
    assert imperative_step(sentence)
    assert not is_fact(sentence, "en")


@pytest.mark.parametrize(
    "sentence",
    [
        "Type 2 diabetes is a chronic disease.",
        "Type I interferons (IFNs) are cytokines with antiviral activity.",
        "Type in mice was associated with weight.",
        "Press coverage was extensive.",
        "Turn over rates were high in the first year.",
        "Close contacts were traced within 24 hours.",
        "Back in 2005, it wasn't clear if other databases had trouble with this form.",
    ],
)
def test_a_noun_that_looks_like_such_a_verb_is_no_step(sentence: str) -> None:
    assert not imperative_step(sentence)
    assert is_fact(sentence, "en")


@pytest.mark.parametrize(
    "sentence",
    [
        "In case the class name in the exception message is obfuscated, see the Android"
        " documentation about retracing.",
        "Double-check that you are working on a copy of your local Gson Git repository.",
        "Make sure the server is running.",
    ],
)
def test_a_condition_then_an_instruction_is_text(sentence: str) -> None:
    assert instructs(sentence, "en")
    assert not is_fact(sentence, "en")


def test_a_statement_after_unless_stays_a_fact() -> None:
    assert is_fact("Unless the flag is set, ripgrep skips hidden files.", "en")


# --- a plan, a scope or a focus in the passive is text ---


@pytest.mark.parametrize(
    ("sentence", "holds"),
    both_sides(
        # a plan or scope in the passive is text
        fails=[
            "Finally, the known relationships between heart lipid metabolism and dysfunction in"
            " humans will be summarized.",
            "Possible mechanisms of DdrB action in damage recovery are discussed.",
            "The Danish prescription registries content, coverage, completeness and the quality of"
            " the data are discussed in this article.",
            "In this document we present an illustrated, "
            "step-by-step protocol for constructing plant"
            " BAC libraries. This protocol is sufficiently detailed to be of use to both new and"
            " experienced investigators.",
            "A particular focus lies on data obtained from mouse "
            "models with modulations of cardiac FA"
            " metabolism.",
            "The emphasis will be on joined inheritance as this "
            "is the most intricate querying case.",
        ],
        # a property or a finding with those words stays a fact
        holds=[
            "The species is described as a small frog with a brown back.",
            "The variance is explained by genotype.",
            "The connection will be closed after the request.",
            "The expression will be evaluated lazily.",
            "The mutation was described in three families.",
            # in a relative clause, an aside or a second predicate: what comes before is stated
            "The result of our SELECT was returned in an object "
            "called Result that will be discussed"
            " later.",
            "It is important to note, as will be discussed further in the section below, that the"
            " autocommit isolation level does not affect the transaction.",
            "The above behavior is known as the save-update "
            "cascade and is discussed in detail in the"
            " reference documentation.",
            "When the user moves the mouse over the input, the "
            "cookie will be presented to the user in"
            " an alert window.",
            # the finding before the scope sentence is the atom's claim
            "GAPDH is also involved in various diseases, especially neurodegenerative disorders and"
            " cancers. Therapeutic strategies to these conditions are discussed.",
            # a scope first and a result after it
            "The amplification mechanism and the factors affecting sensitivity are discussed. This"
            " method was applied to milk samples, and good "
            "recoveries (85.66-109.67%) were obtained.",
        ],
    ),
)
def test_a_plan_or_scope_in_the_passive_is_text_and_a_finding_stays_a_fact(
    sentence: str, holds: bool
) -> None:
    assert bool(is_fact(sentence, "en")) is holds


# --- a clause before a dash of apposition defines nothing ---


def test_a_finite_verb_before_the_dash_is_no_term() -> None:
    sentence = "Матерью Ашоки была Субхадранги — дочь бедного брамина по имени Чампаканагар."
    assert match_definition(sentence) is None
    assert [a.type for a in atoms(sentence, "ru", "Ашока")] == ["fact"]


# --- "X — это Y" is not carried for a category noun in its genus ---


def test_a_definition_whose_genus_holds_a_category_noun_keeps_its_type() -> None:
    text = "Строительство — это процесс сооружения здания или инфраструктуры."
    (atom,) = atoms(text, "ru", "Construction")
    assert (atom.type, atom.term, atom.claim) == ("definition", "Строительство", text)


def test_a_definition_whose_term_is_a_category_noun_is_still_carried() -> None:
    (atom,) = atoms("Главное здание — это памятник архитектуры XIX века.", "ru", "Университет")
    assert atom.claim.startswith("Университет: ")


def test_a_lead_carry_leaves_other_definitions_to_carry() -> None:
    draft = DraftAtom(
        "definition", "Столица — город Ораньестад.", "город Ораньестад", 0.7,
        "Столица — город Ораньестад.", 0, 27, "ru",
        {"term": "Столица", "pattern": "dash"}, "Столица",
    )  # fmt: skip
    carried = lead_carry(draft, "Аруба")
    assert carried.type != "definition" and carried.claim.startswith("Аруба: ")


# --- Russian: "как если бы", "должен", finite verbs, possession ---


def test_as_if_is_no_counterfactual() -> None:
    sentence = (
        "Аутоиммунитет возникает из-за гиперактивности иммунной системы, атакующей нормальные"
        " ткани, как если бы они были чужеродными организмами."
    )
    assert is_fact(sentence, "ru")
    assert not is_fact("Если бы он остался, война бы не началась.", "ru")


@pytest.mark.parametrize(
    "sentence",
    [
        "Аптекарь в Великобритании считается специалистом в области медицины. Аптекарь, получив"
        " квалификацию, должен зарегистрироваться в Генеральном фармацевтическом совете.",
        "В некоторых случаях парламент обладает прямыми консультационными полномочиями, при этом"
        " рекомендации должны реально соблюдаться Комиссией.",
        "ЕС соблюдает «принцип равенства своих граждан» и должен быть основан на «представительной"
        " демократии».",
        "Революционное неповиновение является попыткой свергнуть правительство (революция не"
        " обязательно должна быть политической).",
        "Преподаватели общественных школ обязаны иметь степень бакалавра, при этом большинство из"
        " них должно иметь лицензию.",
        "После захвата кораблей Турчинов дал поручение министру обороны о том, что «в плену не"
        " должно остаться ни одного военного корабля».",
    ],
)
def test_a_norm_after_a_statement_or_aside_leaves_the_statement(sentence: str) -> None:
    assert not ru_instructs(sentence)
    assert is_fact(sentence, "ru")


@pytest.mark.parametrize(
    "sentence",
    [
        "Вы должны установить пакет до запуска сервера.",
        "Файл должен лежать в домашнем каталоге.",
        "Если пакет установлен, нужно перезапустить сервер.",
        "Необходимо установить пакет до запуска сервера.",
        "Установите пакет до запуска сервера.",
        "Проект должен придерживаться требований зонирования. Строительство без соблюдения норм"
        " не в интересах владельца.",
    ],
)
def test_a_norm_of_its_own_is_text(sentence: str) -> None:
    assert ru_instructs(sentence)
    assert not is_fact(sentence, "ru")


@pytest.mark.parametrize(
    "sentence",
    [
        "Открыт полностью реконструированный мемориальный Монумент в честь сибстриновцев.",
        "В Бежицком районе Брянска открыт ледовый дворец «Пересвет».",
        "Возник в заречной слободе Дымково, близ города Вятки.",
        "В целом же боевые действия шли почти по всей линии границы.",
        "Эволюция адаптивной иммунной системы произошла у предка челюстноротых.",
        "Возведённая в ранг мировоззрения, может стать причиной вражды.",
        "После захвата кораблей Александр Турчинов дал поручение новому министру обороны.",
    ],
)
def test_russian_finite_verbs_state_an_event(sentence: str) -> None:
    assert is_fact(sentence, "ru")


def test_possession_states_a_property() -> None:
    assert possessive("Подобно другим ночным видам, у жабы-ага горизонтальные зрачки.")
    assert is_fact("Подобно другим ночным видам, у жабы-ага горизонтальные зрачки.", "ru")
    assert not possessive("У меня к вам просьба.")
    assert not possessive("Проект придерживается требований зонирования.")


# --- a claim with no subject and no verb says something of the carried subject ---


@pytest.mark.parametrize(
    ("text", "heading"),
    [
        ("Автор мемуаров «Воспоминания».", "Нестор Иванович Махно"),
        ("Бывший епископ Русской истинно-православной церкви (РИПЦ).", "Дионисий (Алфёров)"),
        ("Одиннадцатая полнометражная картина Lucasfilm.", "Лабиринт (фильм)"),
    ],
)
def test_a_carried_predicate_is_a_fact(text: str, heading: str) -> None:
    found = atoms(text, "ru", heading)
    assert [(a.type, a.claim.startswith(f"{heading}: ")) for a in found] == [("fact", True)]


def test_a_headline_or_an_aim_is_no_predicate() -> None:
    assert not predicate_of("Зарождение и развитие каталонского национализма.")
    assert predicate_of("Автор мемуаров «Воспоминания».")
    found = atoms("Зарождение и развитие каталонского национализма.", "ru", "История Каталонии")
    assert [a.type for a in found] in ([], ["text"])


# --- seed 17171: a genus with its reason ---


def test_a_genus_with_its_reason_is_no_definition() -> None:
    sentence = (
        "Hepatocellular carcinoma (HCC) is a fatal disease, primarily due to the limited effective"
        " therapies available for patients with advanced or recurrent stages of the disease."
    )
    assert match_definition(sentence) is None
    assert is_fact(sentence, "en")
    found = match_definition("Tuberculosis is an infectious disease caused by Mycobacterium.")
    assert found is not None and found[0] == "Tuberculosis"
