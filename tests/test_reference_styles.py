"""The reference styles researchers paste (issue 39, item 4), read by ``parse_reference`` into
the authors, year, title and venue they say, each from real-looking examples; then the same
styles of the sandbox's English, Chinese, Japanese and Korean records verified."""

from __future__ import annotations

import pytest

import paperlens
from paperlens.base._citation import parse_reference

from fixtures import sandbox_client

SANDBOX = dict(papers=400, seed=5)

STYLES = [
    # (style, text, people, et_al, year, title, venue)
    (
        "APA",
        "Hoegh-Guldberg, O., Mumby, P. J., & Hooten, A. J. (2007). Coral reefs under rapid climate change and "
        "ocean acidification. Science, 318(5857), 1737-1742. https://doi.org/10.1126/science.1152509",
        ["Hoegh-Guldberg", "Mumby", "Hooten"],
        False,
        2007,
        "Coral reefs under rapid climate change and ocean acidification",
        "Science",
    ),
    (
        "APA n.d.",
        "Hughes, T. P., & Kerry, J. T. (n.d.). Global warming and recurrent mass bleaching of corals. Nature.",
        ["Hughes", "Kerry"],
        False,
        None,
        "Global warming and recurrent mass bleaching of corals",
        "Nature",
    ),
    (
        "Vancouver",
        "Hughes TP, Kerry JT, Álvarez-Noriega M, et al. Global warming and recurrent mass bleaching of corals. "
        "Nature. 2017;543(7645):373-7.",
        ["Hughes", "Kerry", "Álvarez-Noriega"],
        True,
        2017,
        "Global warming and recurrent mass bleaching of corals",
        "Nature",
    ),
    (
        "IEEE",
        'A. Vaswani, N. Shazeer, and N. Parmar, "Attention is all you need," in Proc. Adv. Neural Inf. '
        "Process. Syst., 2017, pp. 5998-6008.",
        ["Vaswani", "Shazeer", "Parmar"],
        False,
        2017,
        "Attention is all you need",
        "Adv. Neural Inf. Process. Syst",
    ),
    (
        "Chicago",
        'Lindqvist, Grace, and Tamara Zhang. "Gate Fidelity under Quantum Advantage." Quantum Computing '
        "Letters 12, no. 3 (1994): 45-67.",
        ["Lindqvist", "Grace", "Tamara Zhang"],
        False,
        1994,
        "Gate Fidelity under Quantum Advantage",
        "Quantum Computing Letters",
    ),
    (
        "Harvard, Venue vol:page",
        "Lindqvist F et al (2009) Precipitation extremes in coupled models, J Clim Dyn 30:683",
        ["Lindqvist"],
        True,
        2009,
        "Precipitation extremes in coupled models",
        "J Clim Dyn",
    ),
    (
        "Harvard, Venue vol(issue):pages",
        "Lindqvist F, Zhang T (2009) Precipitation extremes in coupled models. Clim Dyn 30(7):683\u2013699",
        ["Lindqvist", "Zhang"],
        False,
        2009,
        "Precipitation extremes in coupled models",
        "Clim Dyn",
    ),
    (
        "title first, in capitals",
        "GATE FIDELITY UNDER QUANTUM ADVANTAGE: A LARGE-SCALE STUDY. Lindqvist G, Zhang T. Quantum Computing "
        "Letters, 1994.",
        ["Lindqvist", "Zhang"],
        False,
        1994,
        "GATE FIDELITY UNDER QUANTUM ADVANTAGE: A LARGE-SCALE STUDY",
        "Quantum Computing Letters",
    ),
    (
        "GB/T 7714, Chinese, 等",
        "张三, 李四, 王五, 等. 珊瑚白化的大规模研究[J]. 海洋学报, 2019, 41(3): 45-67.",
        ["张三", "李四", "王五"],
        True,
        2019,
        "珊瑚白化的大规模研究",
        "海洋学报",
    ),
    (
        "GB/T 7714, Chinese, a title holding 等",
        "王五. 等离子体物理导论[M]. 北京: 科学出版社, 2015.",
        ["王五"],
        False,
        2015,
        "等离子体物理导论",
        "北京: 科学出版社",
    ),
    (
        "GB/T 7714, English, et al. and [C]",
        "SMITH J, DOE A, LEE K, et al. Coral bleaching at scale[C]//Proceedings of the International Coral "
        "Reef Symposium. Honolulu, 2016: 12-19.",
        ["SMITH", "DOE", "LEE"],
        True,
        2016,
        "Coral bleaching at scale",
        None,
    ),
    (
        "Japanese, ・ and a colon",
        "山田太郎・鈴木花子: 深層学習による画像認識, 情報処理学会論文誌, 2019.",
        ["山田太郎", "鈴木花子"],
        False,
        2019,
        "深層学習による画像認識",
        "情報処理学会論文誌",
    ),
    (
        "Japanese, ほか",
        "山田太郎, 鈴木花子, ほか (2019). 深層学習による画像認識. 情報処理学会論文誌, 60(3), 45-67.",
        ["山田太郎", "鈴木花子"],
        True,
        2019,
        "深層学習による画像認識",
        "情報処理学会論文誌",
    ),
    (
        "Korean, 외",
        "홍길동 외 (2019). 딥러닝 기반 영상 인식 연구. 한국정보과학회논문지, 46(3), 245-256.",
        ["홍길동"],
        True,
        2019,
        "딥러닝 기반 영상 인식 연구",
        "한국정보과학회논문지",
    ),
]


@pytest.mark.parametrize(
    ("style", "text", "people", "et_al", "year", "title", "venue"), STYLES, ids=[s[0] for s in STYLES]
)
def test_each_style_reads_into_what_it_says(style, text, people, et_al, year, title, venue):
    c = parse_reference(text)
    assert (c.people, c.et_al, c.year, c.title) == (people, et_al, year, title)
    if venue is not None:
        assert c.venue == venue


@pytest.fixture(scope="module")
def corpus(sandbox):
    return sandbox_client(sandbox).iter_meta_search(page_size=200).to_list()


def first_of_script(corpus, script):
    return next(r for r in corpus if r.title and any(script[0] <= ch <= script[1] for ch in r.title) and r.author)


def test_cjk_styles_of_the_sandboxs_records_are_verified(sandbox, corpus):
    chinese = first_of_script(corpus, ("\u4e00", "\u9fff"))
    japanese = first_of_script(corpus, ("\u3040", "\u30ff"))
    korean = first_of_script(corpus, ("\uac00", "\ud7af"))

    def gbt(r):
        people = ", ".join(str(a["name"]).replace(" ", "") for a in r.author[:3]) + (
            ", 等" if len(r.author) > 3 else ""
        )
        return (
            f"{people}. {r.title}[J]. {r.publication_venue_name_unified}, {r.publication_published_year}, 12(3): 45-67."
        )

    def japanese_style(r):
        people = "・".join(str(a["name"]).replace(" ", "") for a in r.author)
        return f"{people}: {r.title}, {r.publication_venue_name_unified}, {r.publication_published_year}."

    def korean_style(r):
        people = ", ".join(str(a["name"]) for a in r.author)
        return (
            f"{people} ({r.publication_published_year}). {r.title}. {r.publication_venue_name_unified}, 46(3), 245-256."
        )

    lines = [gbt(chinese), japanese_style(japanese), korean_style(korean), gbt(korean)]
    client = paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url, rate_limits=None)
    checked = client.verify_citations(lines)
    assert [(i.status, i.record.unique_id, i.differences) for i in checked] == [
        ("verified", r.unique_id, {}) for r in (chinese, japanese, korean, korean)
    ]


def test_harvard_title_first_and_undated_lines_of_the_sandboxs_records_are_verified(sandbox, corpus):
    def english(test):
        return next(r for r in corpus if r.title and r.title.isascii() and len(r.author) >= 2 and test(r))

    climate = english(lambda r: r.publication_venue_name_unified == "Journal of Climate Dynamics")
    letters = english(lambda r: (r.publication_venue_name_unified or "").endswith("Letters"))
    undated = english(lambda r: r.unique_id not in (climate.unique_id, letters.unique_id))

    def surname(r, n=0):
        return str(r.author[n]["name"]).split()[-1]

    def initial(r, n=0):
        return str(r.author[n]["name"])[0]

    lines = [
        f"{surname(climate)} {initial(climate)} et al ({climate.publication_published_year}) {climate.title}, "
        "J Clim Dyn 30:683",
        f"{letters.title.upper()}. {surname(letters)} {initial(letters)}, "
        + ", ".join(f"{surname(letters, n)} {initial(letters, n)}" for n in range(1, len(letters.author)))
        + f". {letters.publication_venue_name_unified}, {letters.publication_published_year}.",
        ", ".join(f"{surname(undated, n)}, {initial(undated, n)}." for n in range(len(undated.author)))
        + f" (n.d.). {undated.title}. {undated.publication_venue_name_unified}.",
    ]
    client = paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url, rate_limits=None)
    checked = client.verify_citations(lines)
    assert [(i.status, i.record.unique_id, i.differences) for i in checked] == [
        ("verified", r.unique_id, {}) for r in (climate, letters, undated)
    ]
