//! Sentence templates per language. Placeholders: `{a}` `{b}` topic terms, `{m}` the
//! paper's method, `{m2}` another method, `{d}` dataset, `{k}` metric, `{p}` problem,
//! `{x}` improvement, `{f}` field, `{n}` a reference number, `{who}` a family name.

use super::model::Language;

pub struct Phrases {
    pub abstract_heading: &'static str,
    pub sections: [&'static str; 7],
    pub appendix: &'static str,
    pub problem: &'static str,
    pub method: &'static str,
    pub dataset: &'static str,
    pub finding: &'static str,
    pub figure: &'static str,
    pub supplement: &'static str,
    /// Filler sentences per section (one list reused for every section when short).
    pub filler: &'static [&'static [&'static str]],
    pub titles: &'static [&'static str],
    pub abstract_opening: &'static [&'static str],
}

static EN: Phrases = Phrases {
    abstract_heading: "Abstract",
    sections: [
        "1. Introduction",
        "2. Related Work",
        "3. Method",
        "4. Experiments",
        "5. Results",
        "6. Discussion",
        "7. Conclusion",
    ],
    appendix: "Appendix A. Extended Results",
    problem: "{P} remains a central open problem in {f}.",
    method: "We propose a {m} approach that builds on {a} and {b}.",
    dataset: "We evaluate the approach on {d}.",
    finding: "Our {m} improves {k} by {x}% over the strongest baseline.",
    figure: "Figure {i}: {k} of the {m} across settings of {a}",
    supplement: "Supplementary data: [Table S1]({path})",
    filler: &[
        &[
            "Recent work on {a} has shown promising results, yet {b} is still poorly understood.",
            "In this paper we revisit {a} through the lens of {b}.",
            "Prior studies of {a} relied on small samples and simplified assumptions.",
            "Understanding {b} matters for both theory and practice.",
        ],
        &[
            "Early approaches to {a} used {m2} [{n}].",
            "{who} et al. [{n}] studied {b} with {d}.",
            "A second line of work connects {a} with {b} [{n}].",
            "Surveys of {a} note the lack of shared benchmarks [{n}].",
        ],
        &[
            "A weighting parameter α ∈ [0, 1] balances {a} against {b}.",
            "Formally, we minimise L(θ) = Σᵢ ℓ(xᵢ; θ) + λ‖θ‖² over the training samples.",
            "The design keeps the cost of {a} linear in the input size.",
            "Each component of the {m} can be replaced independently.",
        ],
        &[
            "We compare against {m2} as a baseline.",
            "All experiments were repeated five times with different random seeds.",
            "Hyper-parameters were tuned on a held-out split of {d}.",
            "We report {k} with 95% confidence intervals (± one standard error).",
        ],
        &[
            "The gains are largest for {a} 📈.",
            "Differences were significant (p < 0.01) ✅.",
            "Performance degrades gracefully when {b} is removed.",
            "Ablations confirm that {a} contributes most of the improvement.",
        ],
        &[
            "These findings suggest that {a} and {b} interact in non-trivial ways.",
            "A limitation of our study is its reliance on {d}.",
            "Future work should examine {a} across more settings 🌍.",
            "The results are consistent with earlier reports on {b} [{n}].",
        ],
        &[
            "We presented a {m} for {p}.",
            "The approach is simple, general and reproducible 🔬.",
            "Code and data are available to support further research on {a}.",
        ],
    ],
    titles: &[
        "{M} for {p}",
        "Towards {p} with {m}",
        "{A} and {b}: evidence from {d}",
        "On the role of {a} in {p}",
        "Revisiting {a}: a {m} perspective",
        "Improving {k} of {a} with {m}",
        "{A} under {b}: a large-scale study",
    ],
    abstract_opening: &[
        "{P} is a long-standing challenge.",
        "Progress on {a} has been limited by {b}.",
        "We study how {a} relates to {b}.",
    ],
};

static ZH: Phrases = Phrases {
    abstract_heading: "摘要",
    sections: [
        "1. 引言",
        "2. 相关工作",
        "3. 方法",
        "4. 实验",
        "5. 结果",
        "6. 讨论",
        "7. 结论",
    ],
    appendix: "附录A. 补充结果",
    problem: "{p}是{a}领域尚未解决的核心问题。",
    method: "我们提出了一种{m}方法，结合了{a}与{b}。",
    dataset: "我们在{d}上评估了该方法。",
    finding: "我们的{m}将{k}提升了{x}%。",
    figure: "图{i}：{a}条件下{m}的{k}",
    supplement: "补充数据：[表S1]({path})",
    filler: &[&[
        "近年来，{a}受到了广泛关注。",
        "{a}与{b}之间存在显著关联。",
        "实验结果表明{a}对{b}有重要影响。",
        "本研究为{a}提供了新的视角🔬。",
        "已有研究[{n}]讨论了{b}的作用。",
        "参数α∈[0,1]用于平衡{a}与{b}。",
    ]],
    titles: &[
        "{a}与{b}的关系研究",
        "面向{a}的{b}方法",
        "基于{m}的{a}研究",
        "{a}中的{b}：来自{d}的证据",
    ],
    abstract_opening: &["{a}是当前研究的热点。", "本文研究{a}与{b}之间的关系。"],
};

static JA: Phrases = Phrases {
    abstract_heading: "要旨",
    sections: [
        "1. はじめに",
        "2. 関連研究",
        "3. 手法",
        "4. 実験",
        "5. 結果",
        "6. 考察",
        "7. 結論",
    ],
    appendix: "付録A. 追加結果",
    problem: "{p}は、{a}の分野における未解決の中心的な課題である。",
    method: "本研究では、{a}と{b}を組み合わせた{m}を提案する。",
    dataset: "提案手法を{d}で評価した。",
    finding: "提案する{m}は{k}を{x}%改善した。",
    figure: "図{i}：{a}の条件における{m}の{k}",
    supplement: "補足データ：[表S1]({path})",
    filler: &[&[
        "近年、{a}が注目されている。",
        "{a}と{b}の間には有意な関連がある。",
        "実験の結果、{a}が{b}に大きな影響を与えることが示された。",
        "本研究は{a}に新たな視点を与える🔬。",
        "先行研究[{n}]では{b}の役割が議論されている。",
        "パラメータα∈[0,1]で{a}と{b}の重みを調整する。",
    ]],
    titles: &[
        "{a}と{b}に関する研究",
        "{a}における{b}の解析",
        "{m}を用いた{a}の研究",
        "{d}に基づく{a}と{b}の検討",
    ],
    abstract_opening: &[
        "{a}は重要な研究課題である。",
        "本論文では{a}と{b}の関係を調べる。",
    ],
};

static KO: Phrases = Phrases {
    abstract_heading: "초록",
    sections: [
        "1. 서론",
        "2. 관련 연구",
        "3. 방법",
        "4. 실험",
        "5. 결과",
        "6. 논의",
        "7. 결론",
    ],
    appendix: "부록 A. 추가 결과",
    problem: "{p}은(는) {a} 분야의 핵심 미해결 과제이다.",
    method: "본 연구는 {a}와(과) {b}를 결합한 {m} 방법을 제안한다.",
    dataset: "제안 방법을 {d}에서 평가하였다.",
    finding: "제안한 {m}은(는) {k}을(를) {x}% 향상시켰다.",
    figure: "그림 {i}: {a} 조건에서 {m}의 {k}",
    supplement: "보충 자료: [표 S1]({path})",
    filler: &[&[
        "최근 {a}에 대한 관심이 높아지고 있다.",
        "{a}와(과) {b} 사이에는 유의한 관련이 있다.",
        "실험 결과 {a}이(가) {b}에 큰 영향을 미치는 것으로 나타났다.",
        "본 연구는 {a}에 새로운 관점을 제공한다🔬.",
        "선행 연구[{n}]는 {b}의 역할을 논의하였다.",
        "매개변수 α∈[0,1]로 {a}와(과) {b}의 가중치를 조정한다.",
    ]],
    titles: &[
        "{a}와(과) {b}의 관계에 관한 연구",
        "{a}를 위한 {b} 분석",
        "{m}을(를) 이용한 {a} 연구",
        "{d} 기반 {a} 연구",
    ],
    abstract_opening: &[
        "{a}은(는) 중요한 연구 주제이다.",
        "본 논문은 {a}와(과) {b}의 관계를 분석한다.",
    ],
};

pub fn phrases(language: Language) -> &'static Phrases {
    match language {
        Language::Zh => &ZH,
        Language::Ja => &JA,
        Language::Ko => &KO,
        Language::En | Language::Und => &EN,
    }
}

impl Phrases {
    pub fn filler(&self, section: usize) -> &'static [&'static str] {
        self.filler[section.min(self.filler.len() - 1)]
    }
}

/// Values for the placeholders; an uppercase placeholder (`{P}`, `{M}`, `{A}`)
/// capitalises the first letter of its value.
#[derive(Debug, Default, Clone)]
pub struct Slots<'a> {
    pub a: &'a str,
    pub b: &'a str,
    pub m: &'a str,
    pub m2: &'a str,
    pub d: &'a str,
    pub k: &'a str,
    pub p: &'a str,
    pub x: String,
    pub f: &'a str,
    pub n: u32,
    pub who: &'a str,
    pub i: u32,
    pub path: String,
}

pub fn fill(template: &str, slots: &Slots<'_>, out: &mut String) {
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            out.push_str(&rest[open..]);
            return;
        };
        let name = &after[..close];
        let lower = name.to_ascii_lowercase();
        let value: std::borrow::Cow<'_, str> = match lower.as_str() {
            "a" => slots.a.into(),
            "b" => slots.b.into(),
            "m" => slots.m.into(),
            "m2" => slots.m2.into(),
            "d" => slots.d.into(),
            "k" => slots.k.into(),
            "p" => slots.p.into(),
            "x" => slots.x.as_str().into(),
            "f" => slots.f.into(),
            "who" => slots.who.into(),
            "n" => slots.n.to_string().into(),
            "i" => slots.i.to_string().into(),
            "path" => slots.path.as_str().into(),
            _ => name.into(),
        };
        if name.starts_with(|c: char| c.is_ascii_uppercase()) {
            let mut chars = value.chars();
            if let Some(first) = chars.next() {
                out.extend(first.to_uppercase());
                out.push_str(chars.as_str());
            }
        } else {
            out.push_str(&value);
        }
        rest = &after[close + 1..];
    }
    out.push_str(rest);
}
