//! Full texts in Markdown, generated on demand from (seed, paper): a fixed plan of
//! blocks (title, abstract, seven sections with paragraphs, figures, a supplement link)
//! each regenerable alone, plus for long texts an appendix that pushes the text past
//! the 524,288 code-point page limit. Blocks are joined by a blank line.

use super::model::{Language, Paper, TextKind};
use super::names::FAMILY_NAMES;
use super::phrases::{fill, phrases, Slots};
use super::topics::Topic;
use crate::service::rng::Rng;

const TAG_PLAN: u64 = 0x706c_616e;
const TAG_PARA: u64 = 0x7061_7261;
const TAG_APPENDIX: u64 = 0x6170_7078;
const SEPARATOR: &str = "\n\n";
/// Code points of long texts: above the 524,288 limit of one `/content` page.
const LONG_TEXT_MIN: usize = 530_000;

pub const METHOD_SECTION: u8 = 2;
pub const EXPERIMENTS_SECTION: u8 = 3;
pub const RESULTS_SECTION: u8 = 4;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Block {
    Title,
    AbstractHeading,
    Abstract,
    Heading(u8),
    Para { section: u8, n: u8 },
    Figure(u8),
    Supplement,
}

impl Block {
    pub fn is_paragraph(self) -> bool {
        matches!(self, Block::Abstract | Block::Para { .. })
    }
}

/// The sentences that the structured data points back to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    Problem,
    Method,
    Dataset,
    Finding,
}

impl Anchor {
    /// The section and paragraph number whose first sentence is this anchor.
    pub fn location(self) -> (u8, u8) {
        match self {
            Anchor::Problem => (0, 0),
            Anchor::Method => (METHOD_SECTION, 0),
            Anchor::Dataset => (EXPERIMENTS_SECTION, 0),
            Anchor::Finding => (RESULTS_SECTION, 0),
        }
    }
}

/// A paper and the seed: everything needed to write its text.
pub struct TextSource<'a> {
    pub seed: u64,
    pub paper: &'a Paper,
}

pub fn terms(topic: &'static Topic, language: Language) -> &'static [&'static str] {
    match language {
        Language::Zh => &topic.zh,
        Language::Ja => &topic.ja,
        Language::Ko => &topic.ko,
        Language::En | Language::Und => &topic.terms,
    }
}

pub fn term(topic: &'static Topic, language: Language, index: usize) -> &'static str {
    let list = terms(topic, language);
    list[index % list.len()]
}

/// Two different term indexes of a list of `len` terms.
pub fn term_pair(rng: &mut Rng, len: usize) -> (usize, usize) {
    let a = rng.below(len);
    (a, (a + 1 + rng.below(len - 1)) % len)
}

impl<'a> TextSource<'a> {
    pub fn new(seed: u64, paper: &'a Paper) -> TextSource<'a> {
        TextSource { seed, paper }
    }

    fn language(&self) -> Language {
        self.paper.language
    }

    /// The slots of the paper's own focus (method, dataset, metric, problem, terms).
    pub fn focus_slots(&self) -> Slots<'static> {
        let topic = self.paper.primary_topic();
        let focus = self.paper.focus;
        Slots {
            a: term(topic, self.language(), focus.term_a as usize),
            b: term(topic, self.language(), focus.term_b as usize),
            m: topic.methods[focus.method as usize],
            m2: topic.methods[(focus.method as usize + 1) % topic.methods.len()],
            d: topic.datasets[focus.dataset as usize],
            k: topic.metrics[focus.metric as usize],
            p: topic.problems[focus.problem as usize],
            x: format!("{:.1}", focus.improvement),
            f: topic.field,
            ..Slots::default()
        }
    }

    pub fn anchor_sentence(&self, anchor: Anchor) -> String {
        let words = phrases(self.language());
        let template = match anchor {
            Anchor::Problem => words.problem,
            Anchor::Method => words.method,
            Anchor::Dataset => words.dataset,
            Anchor::Finding => words.finding,
        };
        let mut out = String::new();
        fill(template, &self.focus_slots(), &mut out);
        out
    }

    pub fn figure_path(&self, n: u8) -> String {
        format!("figures/{}/fig{n}.png", self.paper.unique_id)
    }

    pub fn supplement_path(&self) -> String {
        format!("supplementary/{}/table1.csv", self.paper.unique_id)
    }

    /// The blocks before any appendix, in order.
    pub fn plan(&self) -> Vec<Block> {
        let mut rng = Rng::new(&[self.seed, TAG_PLAN, self.paper.index as u64]);
        let mut blocks = vec![Block::Title, Block::AbstractHeading, Block::Abstract];
        for section in 0..7u8 {
            blocks.push(Block::Heading(section));
            let paragraphs = match section {
                0 => 3,
                6 => 1,
                _ => 2 + rng.below(2) as u8,
            };
            for n in 0..paragraphs {
                blocks.push(Block::Para { section, n });
                if n == 0 {
                    let figure = match section {
                        METHOD_SECTION => 1,
                        RESULTS_SECTION => 2,
                        EXPERIMENTS_SECTION => 3,
                        _ => 0,
                    };
                    if figure > 0 && figure <= self.paper.figures {
                        blocks.push(Block::Figure(figure));
                    }
                }
            }
            if section == EXPERIMENTS_SECTION {
                blocks.push(Block::Supplement);
            }
        }
        blocks
    }

    pub fn write_block(&self, block: Block, out: &mut String) {
        let words = phrases(self.language());
        match block {
            Block::Title => {
                out.push_str("# ");
                out.push_str(&self.paper.title);
            }
            Block::AbstractHeading => {
                out.push_str("## ");
                out.push_str(words.abstract_heading);
            }
            Block::Abstract => out.push_str(&self.paper.abstract_text),
            Block::Heading(section) => {
                out.push_str("## ");
                out.push_str(words.sections[section as usize]);
            }
            Block::Para { section, n } => self.write_paragraph(section, n, out),
            Block::Figure(n) => {
                let mut caption = String::new();
                let slots = Slots { i: n as u32, ..self.focus_slots() };
                fill(words.figure, &slots, &mut caption);
                out.push_str(&format!("![{caption}]({})", self.figure_path(n)));
            }
            Block::Supplement => {
                let slots = Slots { path: self.supplement_path(), ..Slots::default() };
                fill(words.supplement, &slots, out);
            }
        }
    }

    fn write_paragraph(&self, section: u8, n: u8, out: &mut String) {
        let rng = Rng::new(&[self.seed, TAG_PARA, self.paper.index as u64, section as u64, n as u64]);
        let anchor = [Anchor::Problem, Anchor::Method, Anchor::Dataset, Anchor::Finding]
            .into_iter()
            .find(|a| a.location() == (section, n));
        let lead = anchor.map(|a| self.anchor_sentence(a));
        self.write_sentences(rng, section as usize, 3, 6, lead, out);
    }

    fn write_sentences(
        &self,
        mut rng: Rng,
        section: usize,
        min: usize,
        max: usize,
        lead: Option<String>,
        out: &mut String,
    ) {
        let words = phrases(self.language());
        let topic = self.paper.primary_topic();
        let joiner = if self.language().is_cjk() { "" } else { " " };
        let mut first = true;
        if let Some(lead) = lead {
            out.push_str(&lead);
            first = false;
        }
        let count = min + rng.below(max - min + 1);
        let base = self.focus_slots();
        for _ in 0..count {
            if !first {
                out.push_str(joiner);
            }
            first = false;
            let (a, b) = term_pair(&mut rng, terms(topic, self.language()).len());
            let slots = Slots {
                a: term(topic, self.language(), a),
                b: term(topic, self.language(), b),
                m2: rng.pick(&topic.methods),
                n: 1 + rng.below(40) as u32,
                who: rng.pick(FAMILY_NAMES),
                ..base.clone()
            };
            fill(rng.pick(words.filler(section)), &slots, out);
        }
    }

    fn write_appendix_paragraph(&self, n: usize, out: &mut String) {
        let rng = Rng::new(&[self.seed, TAG_APPENDIX, self.paper.index as u64, n as u64]);
        self.write_sentences(rng, 5, 6, 10, None, out);
    }

    /// The whole text (None for papers without full text).
    pub fn full_text(&self) -> Option<String> {
        if self.paper.text_kind == TextKind::None {
            return None;
        }
        let mut out = String::with_capacity(8 * 1024);
        for (i, block) in self.plan().into_iter().enumerate() {
            if i > 0 {
                out.push_str(SEPARATOR);
            }
            self.write_block(block, &mut out);
        }
        if self.paper.text_kind == TextKind::Long {
            out.push_str(SEPARATOR);
            out.push_str("## ");
            out.push_str(phrases(self.language()).appendix);
            let mut code_points = out.chars().count();
            let mut n = 0;
            while code_points < LONG_TEXT_MIN {
                let start = out.len();
                out.push_str(SEPARATOR);
                self.write_appendix_paragraph(n, &mut out);
                code_points += out[start..].chars().count();
                n += 1;
            }
        }
        out.push('\n');
        Some(out)
    }

    /// The first `max` paragraphs with their code-point offsets in the full text.
    pub fn leading_paragraphs(&self, max: usize) -> Vec<PlacedBlock> {
        let mut placed = Vec::new();
        let mut offset = 0usize;
        let mut buffer = String::new();
        for (i, block) in self.plan().into_iter().enumerate() {
            if placed.len() == max {
                break;
            }
            buffer.clear();
            self.write_block(block, &mut buffer);
            let length = buffer.chars().count();
            if block.is_paragraph() {
                placed.push(PlacedBlock { block, block_no: i as u16, offset: offset as u32, text: buffer.clone() });
            }
            offset += length + SEPARATOR.len();
        }
        placed
    }

    pub fn block_text(&self, block: Block) -> String {
        let mut out = String::new();
        self.write_block(block, &mut out);
        out
    }
}

#[derive(Debug, Clone)]
pub struct PlacedBlock {
    pub block: Block,
    pub block_no: u16,
    /// Offset in code points of the block in the full text.
    pub offset: u32,
    pub text: String,
}

/// A full text with a sparse index from code-point offsets to byte offsets.
#[derive(Debug)]
pub struct FullText {
    pub text: String,
    pub code_points: usize,
    /// Byte offset of every `STRIDE`-th code point.
    checkpoints: Vec<usize>,
}

const STRIDE: usize = 1024;

impl FullText {
    pub fn new(text: String) -> FullText {
        let mut checkpoints = Vec::with_capacity(text.len() / STRIDE + 1);
        let mut code_points = 0;
        for (byte, _) in text.char_indices() {
            if code_points % STRIDE == 0 {
                checkpoints.push(byte);
            }
            code_points += 1;
        }
        FullText { text, code_points, checkpoints }
    }

    /// Byte offset of a code-point offset (clamped to the end).
    pub fn byte_offset(&self, code_point: usize) -> usize {
        if code_point >= self.code_points {
            return self.text.len();
        }
        let start = self.checkpoints[code_point / STRIDE];
        let skip = code_point % STRIDE;
        self.text[start..].char_indices().nth(skip).map_or(self.text.len(), |(b, _)| start + b)
    }

    /// The code points `[offset, offset + limit)`.
    pub fn slice(&self, offset: usize, limit: usize) -> &str {
        let start = self.byte_offset(offset);
        let end = self.byte_offset(offset.saturating_add(limit));
        &self.text[start..end]
    }
}
